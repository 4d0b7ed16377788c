/*
 * config.c - the YAML job config: load a libyaml node tree, graft the --set
 * overrides onto it, then walk one schema table to fill cuplas_config.
 *
 * Design facts: override nodes are appended after the file's nodes, so a
 * node's id alone says whether an error points at file:line:col or at
 * "--set ...". The schema table (config_keys, input_keys) is the single
 * description of every key: validation, the YAML dump and the key reference
 * all read it. Defaults are not in the table: they live in
 * cuplas_config_defaults (and params.c for sort.*) and the table formats
 * them, so there is exactly one copy of each.
 */
#include "config/config.h"
#include "util/fsutil.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <yaml.h>

/* ------------------------------------------------------------------------
 * The schema
 * ------------------------------------------------------------------------ */

enum kind {
    K_BOOL,      /* bool                                                  */
    K_INT,       /* int                                                   */
    K_I64,       /* int64_t                                               */
    K_U64,       /* uint64_t, the full range                              */
    K_NUM,       /* double: ints and floats accepted                      */
    K_ENUM,      /* an enum stored as int, spelled by `names`             */
    K_STR,       /* char *                                                */
    K_TEMPLATE,  /* char *, output file name with placeholders            */
    K_STRLIST,   /* char ** + int count; a single string is a 1-list      */
    K_INTLIST,   /* int * + int count, distinct values                    */
    K_CHANNELS,  /* "all" (NULL) or int list with "a-b" ranges, distinct  */
    K_NUMLIST,   /* double * + int count                                  */
    K_INPUTS     /* cuplas_input_spec * + int count, entries: input_keys  */
};

enum {
    F_MIN = 1u << 0,        /* `min` bounds the value                     */
    F_MAX = 1u << 1,        /* `max` bounds the value                     */
    F_MIN_OPEN = 1u << 2,   /* ... exclusively                            */
    F_MAX_OPEN = 1u << 3,
    F_EVEN = 1u << 4,       /* integers: must be even                     */
    F_REQUIRED = 1u << 5,   /* must be present (see check_config)         */
    F_NONEMPTY = 1u << 6,   /* strings and lists: "" and [] are errors    */
    F_EMPTY_NULL = 1u << 7  /* strings: "" (or no value) stores NULL      */
};

struct key {
    const char *name;          /* dotted path; input_keys: within an entry */
    enum kind kind;
    size_t off;                /* offset of the field in its struct        */
    size_t n_off;              /* list kinds: offset of the int count      */
    double min, max;           /* with F_MIN / F_MAX                       */
    unsigned flags;
    const char *const *names;  /* K_ENUM: NULL-terminated, index = value   */
    const char *doc;           /* one line, shown in the key reference     */
};

/* Values are read and written through int *: make sure that is the size. */
_Static_assert(sizeof(cuplas_permuter) == sizeof(int), "enum size");
_Static_assert(sizeof(cuplas_border) == sizeof(int), "enum size");
_Static_assert(sizeof(cuplas_overwrite) == sizeof(int), "enum size");
_Static_assert(sizeof(cuplas_norm) == sizeof(int), "enum size");
_Static_assert(sizeof(cuplas_device_kind) == sizeof(int), "enum size");
_Static_assert(sizeof(cuplas_log_level) == sizeof(int), "enum size");
_Static_assert(sizeof(cuplas_log_format) == sizeof(int), "enum size");

static const char *const permuter_names[] = { "feistel", "lcg", NULL };
static const char *const border_names[] = { "circular", "reflect", "replicate", NULL };
static const char *const overwrite_names[] = { "skip", "overwrite", "error", NULL };
static const char *const norm_names[] = { "none", "standardize", "minmax", NULL };
static const char *const device_names[] = { "auto", "cpu", "gpu", NULL };
#define level_names cuplas_log_level_names
#define format_names cuplas_log_format_names

#define AT(f) offsetof(cuplas_config, f)
#define IN(f) offsetof(cuplas_input_spec, f)

/* Largest channel index and GPU id: bounds the "a-b" range expansion and
 * lets duplicates be found with a small bitmap. */
#define MAX_CHANNEL 65535
#define MAX_GPU 1023

/* Order matters: it is the order of `cuplas check`, the dump and the docs. */
static const struct key config_keys[] = {
    { "inputs", K_INPUTS, AT(inputs), AT(ninputs), .flags = F_REQUIRED,
      .doc = "what to sort: a list of entries with the inputs[] keys below; "
             "required in a config file (absent only when there is no file)" },
    { "output.dir", K_STR, AT(output.dir), .flags = F_NONEMPTY,
      .doc = "directory for the result files, created if missing; "
             "a relative path is relative to the current working directory" },
    { "output.name", K_TEMPLATE, AT(output.name),
      .doc = "result file name: {stem} = input file name without extension, "
             "{file} = input file name, {dataset} = dataset path with '/' -> '_' "
             "and the leading '/' dropped" },
    { "output.overwrite", K_ENUM, AT(output.overwrite), .names = overwrite_names,
      .doc = "when the result file exists: skip the job if the file is complete "
             "(resume), overwrite it, or fail the job" },
    { "output.chunk_rows", K_I64, AT(output.chunk_rows), .min = 0, .flags = F_MIN,
      .doc = "HDF5 chunk height in grid rows; 0 = auto (chunks of about 1 MiB)" },
    { "output.deflate", K_INT, AT(output.deflate), .min = 0, .max = 9,
      .flags = F_MIN | F_MAX,
      .doc = "gzip level of the result datasets; 0 = uncompressed" },
    { "output.shuffle", K_BOOL, AT(output.shuffle),
      .doc = "HDF5 byte shuffle before deflate (smaller files for numeric data); "
             "no effect with deflate 0" },
    { "output.fsync", K_BOOL, AT(output.fsync),
      .doc = "fsync each result (and its folder) before it is published; false "
             "leaves the flush to the OS: faster on slow or parallel file systems, "
             "but a crash can then leave a published file incomplete" },

    { "sort.seed", K_U64, AT(sort.seed),
      .doc = "random seed; with the input and the other sort.* keys it fully "
             "determines the result, on any device and thread count" },
    { "sort.permuter", K_ENUM, AT(sort.permuter), .names = permuter_names,
      .doc = "random permutation generator" },
    { "sort.shuffle", K_BOOL, AT(sort.shuffle),
      .doc = "start from a random shuffle of the grid; false = start from the "
             "order as stored" },
    { "sort.start_radius", K_NUM, AT(sort.start_radius), .min = 0, .flags = F_MIN,
      .doc = "first blur radius; 0 = auto (max(H, W) / 2 - 1)" },
    { "sort.radius_decay", K_NUM, AT(sort.radius_decay), .min = 0, .max = 1,
      .flags = F_MIN | F_MAX | F_MIN_OPEN | F_MAX_OPEN,
      .doc = "the radius is multiplied by this after each level" },
    { "sort.min_blur_radius", K_INT, AT(sort.min_blur_radius), .min = 1,
      .flags = F_MIN,
      .doc = "smallest blur radius: the schedule stops below it" },
    { "sort.min_block_size", K_INT, AT(sort.min_block_size), .min = 2,
      .flags = F_MIN | F_EVEN,
      .doc = "smallest side of the blocks whose cells are permuted and "
             "swapped (even: blocks split into 2x2 groups)" },
    { "sort.blur_passes", K_INT, AT(sort.blur_passes), .min = 1, .max = 4,
      .flags = F_MIN | F_MAX,
      .doc = "box blurs iterated per target (more = closer to a Gaussian)" },
    { "sort.border_x", K_ENUM, AT(sort.border_x), .names = border_names,
      .doc = "blur border rule along x (within a row)" },
    { "sort.border_y", K_ENUM, AT(sort.border_y), .names = border_names,
      .doc = "blur border rule along y (within a column)" },
    { "sort.improvement_break", K_NUM, AT(sort.improvement_break), .min = 0,
      .max = 1, .flags = F_MIN | F_MAX | F_MAX_OPEN,
      .doc = "a level stops when a pass improves the loss by less than this "
             "fraction" },
    { "sort.min_configs", K_INT, AT(sort.min_configs), .min = 1, .flags = F_MIN,
      .doc = "block configurations tried per level, at least" },
    { "sort.max_configs", K_INT, AT(sort.max_configs), .min = 1, .flags = F_MIN,
      .doc = "block configurations tried per level, at most; must be >= "
             "sort.min_configs" },
    { "sort.max_passes", K_INT, AT(sort.max_passes), .min = 1, .flags = F_MIN,
      .doc = "passes per block configuration, at most" },

    { "channels.use", K_CHANNELS, AT(channels.use), AT(channels.nuse), .min = 0,
      .max = MAX_CHANNEL, .flags = F_MIN | F_MAX,
      .doc = "channels that drive the sort (all channels are reordered); "
             "all = every channel" },
    { "channels.weights", K_NUMLIST, AT(channels.weights), AT(channels.nweights),
      .min = 0, .flags = F_MIN | F_MIN_OPEN,
      .doc = "one weight per used channel, [] = all 1; with use: all the "
             "length is checked against the data's C when it is read" },
    { "channels.normalize", K_ENUM, AT(channels.normalize), .names = norm_names,
      .doc = "per-channel scaling before the sort: none, zero mean and unit "
             "variance, or onto [0, 1]" },

    { "backend.device", K_ENUM, AT(backend.device), .names = device_names,
      .doc = "where to sort; auto = the GPUs if any is usable, else the CPU" },
    { "backend.gpus", K_INTLIST, AT(backend.gpus), AT(backend.ngpus), .min = 0,
      .max = MAX_GPU, .flags = F_MIN | F_MAX,
      .doc = "CUDA device ids to use; [] = every visible device" },
    { "backend.cpu_fallback", K_BOOL, AT(backend.cpu_fallback),
      .doc = "rerun a job on the CPU when its GPU fails" },
    { "backend.threads", K_INT, AT(backend.threads), .min = 0, .flags = F_MIN,
      .doc = "host threads: the CPU backend's, or the GPU lanes' shared pool; 0 = the OpenMP default (OMP_NUM_THREADS, else every core)" },
    { "backend.memory_limit_mb", K_INT, AT(backend.memory_limit_mb), .min = 0, .flags = F_MIN,
      .doc = "memory a job may use, MiB: per GPU for the lanes together, or per CPU job; "
             "0 = all free device memory (GPU) or no limit (CPU). A grid that needs more fails "
             "(or falls back to the CPU) with a clear error" },
    { "backend.lanes", K_INT, AT(backend.lanes), .min = 1, .max = 16, .flags = F_MIN | F_MAX,
      .doc = "grids in flight per GPU, each with its own stream, pinned buffers and "
             "host thread: one uploads while another sorts and a third writes" },
    { "backend.h5_helpers", K_INT, AT(backend.h5_helpers), .min = -1, .max = 64,
      .flags = F_MIN | F_MAX,
      .doc = "helper processes that build uncompressed results of up to 8 MiB (their HDF5 "
             "metadata) beside the one HDF5 thread; -1 = one per GPU used (none on the CPU), "
             "0 = none" },

    { "logging.level", K_ENUM, AT(log.level), .names = level_names,
      .doc = "least severe message that is printed" },
    { "logging.format", K_ENUM, AT(log.format), .names = format_names,
      .doc = "log line format; auto = text on a terminal, json otherwise" },
    { "logging.file", K_STR, AT(log.file), .flags = F_EMPTY_NULL,
      .doc = "log file; \"\" = stderr" },
};

/* The keys of one `inputs:` entry. */
static const struct key input_keys[] = {
    { "files", K_STRLIST, IN(files), IN(nfiles), .flags = F_REQUIRED | F_NONEMPTY,
      .doc = "HDF5 files: a path or glob pattern, or a list of them; "
             "relative to the current working directory" },
    { "datasets", K_STRLIST, IN(datasets), IN(ndatasets),
      .doc = "dataset paths or fnmatch patterns (string or list); [] = every "
             "numeric dataset of rank 2 or 3" },
    { "height", K_I64, IN(height), .min = 0, .flags = F_MIN,
      .doc = "grid height of (N, C) datasets; 0 = from the dataset's height "
             "and width attributes, else a square" },
    { "width", K_I64, IN(width), .min = 0, .flags = F_MIN,
      .doc = "grid width of (N, C) datasets; 0 = as for height" },
};

#define NCONFIG_KEYS (sizeof config_keys / sizeof config_keys[0])
#define NINPUT_KEYS (sizeof input_keys / sizeof input_keys[0])

/* ------------------------------------------------------------------------
 * Loader state and error reporting
 * ------------------------------------------------------------------------ */

/* Nodes with ids >= first were grafted by the override `text`. */
struct origin {
    int first;
    const char *text;
};

struct loader {
    const char *path;           /* config file, NULL for none              */
    yaml_document_t doc;
    int nfile;                  /* nodes 1..nfile came from the file       */
    struct origin *ovr;
    int novr;
    cuplas_error *err;
    const yaml_node_t *seen[NCONFIG_KEYS]; /* node that set each row       */
};

static int walk_mapping(struct loader *ld, const yaml_node_t *map,
                        const char *prefix, const char *shown,
                        const struct key *keys, size_t nkeys, void *base,
                        const yaml_node_t **seen);

static int node_id(const struct loader *ld, const yaml_node_t *node)
{
    return (int)(node - ld->doc.nodes.start) + 1;
}

static bool from_file(const struct loader *ld, const yaml_node_t *node)
{
    return ld->path && node_id(ld, node) <= ld->nfile;
}

/* Point the error at `node`: file:line:col (1-based), or the override. */
static void blame(const struct loader *ld, const yaml_node_t *node)
{
    if (from_file(ld, node)) {
        cuplas_error_where(ld->err, "%s:%zu:%zu", ld->path,
                           node->start_mark.line + 1, node->start_mark.column + 1);
        return;
    }
    int id = node_id(ld, node);
    for (int k = ld->novr - 1; k >= 0; k--) {
        if (ld->ovr[k].first <= id) {
            cuplas_error_where(ld->err, "--set %s", ld->ovr[k].text);
            return;
        }
    }
}

static int fail_at(const struct loader *ld, const yaml_node_t *node,
                   const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail_at(const struct loader *ld, const yaml_node_t *node,
                   const char *fmt, ...)
{
    char msg[sizeof ld->err->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    int rc = cuplas_error_set(ld->err, CUPLAS_ERR_USAGE, "%s", msg);
    if (node)
        blame(ld, node);
    return rc;
}

static const char *scalar_text(const yaml_node_t *n)
{
    return (const char *)n->data.scalar.value;
}

static bool is_plain(const yaml_node_t *n)
{
    return n->type == YAML_SCALAR_NODE
        && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
}

/* `key:` with nothing after it, `~` and `null` are YAML's null. */
static bool is_null(const yaml_node_t *n)
{
    if (!is_plain(n))
        return false;
    const char *s = scalar_text(n);
    return s[0] == '\0' || strcmp(s, "~") == 0 || strcasecmp(s, "null") == 0;
}

/* How a node reads in a message: `1.5`, `"abc"`, `a list`. */
static const char *describe(const yaml_node_t *n, char *buf, size_t size)
{
    if (n->type == YAML_SEQUENCE_NODE)
        return "a list";
    if (n->type == YAML_MAPPING_NODE)
        return "a mapping";
    if (is_null(n))
        return "an empty value";
    const char *quote = is_plain(n) ? "" : "\"";
    const char *more = n->data.scalar.length > 60 ? "..." : "";
    snprintf(buf, size, "%s%.60s%s%s", quote, scalar_text(n), more, quote);
    return buf;
}

/* "a number in (0, 1)": what a key accepts, for messages and the docs. */
static const char *accepted(const struct key *k, char *buf, size_t size)
{
    char range[96] = "";
    bool lo = k->flags & F_MIN, hi = k->flags & F_MAX;
    if (lo && hi)
        snprintf(range, sizeof range, " in %c%g, %g%c",
                 k->flags & F_MIN_OPEN ? '(' : '[', k->min, k->max,
                 k->flags & F_MAX_OPEN ? ')' : ']');
    else if (lo)
        snprintf(range, sizeof range, " %s %g",
                 k->flags & F_MIN_OPEN ? ">" : ">=", k->min);

    switch (k->kind) {
    case K_BOOL:
        snprintf(buf, size, "true or false (or yes, no)");
        break;
    case K_INT:
    case K_I64:
        snprintf(buf, size, "%s%s", k->flags & F_EVEN ? "an even integer" : "an integer",
                 range);
        break;
    case K_U64:
        snprintf(buf, size, "an integer in [0, 2^64-1]");
        break;
    case K_NUM:
        snprintf(buf, size, "a number%s", range);
        break;
    case K_ENUM: {
        size_t len = (size_t)snprintf(buf, size, "one of");
        for (int i = 0; k->names[i] && len < size; i++)
            len += (size_t)snprintf(buf + len, size - len, "%s %s",
                                    i ? "," : "", k->names[i]);
        break;
    }
    case K_STR:
        snprintf(buf, size, "%s", k->flags & F_NONEMPTY ? "a non-empty string" : "a string");
        break;
    case K_TEMPLATE:
        snprintf(buf, size, "a file name with {dataset} and {stem} or {file}");
        break;
    case K_STRLIST:
        snprintf(buf, size, "a string or a list of strings%s",
                 k->flags & F_NONEMPTY ? " (at least one)" : "");
        break;
    case K_INTLIST:
        snprintf(buf, size, "a list of distinct integers%s", range);
        break;
    case K_CHANNELS:
        snprintf(buf, size, "all, or a list of distinct channel indices%s "
                 "or ranges like \"0-2\"", range);
        break;
    case K_NUMLIST:
        snprintf(buf, size, "a list of numbers%s", range);
        break;
    case K_INPUTS:
        snprintf(buf, size, "a list of mappings with files and optionally "
                 "datasets, height, width");
        break;
    }
    return buf;
}

/* The usual error: "<name>: <value> <problem> (accepted: <what>)". */
static int fail_value(const struct loader *ld, const struct key *k,
                      const char *name, const yaml_node_t *node,
                      const char *problem)
{
    char val[80], acc[256];
    return fail_at(ld, node, "%s: %s %s (accepted: %s)", name,
                   describe(node, val, sizeof val), problem,
                   accepted(k, acc, sizeof acc));
}

/* ------------------------------------------------------------------------
 * Scalars
 * ------------------------------------------------------------------------ */

static bool all_digits(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return false;
    return true;
}

/* Decimal integers only: "1.5" and "1e3" are not integers. */
static bool parse_int(const char *s, long long *out, bool *overflow)
{
    const char *digits = (*s == '-' || *s == '+') ? s + 1 : s;
    if (!all_digits(digits))
        return false;
    errno = 0;
    *out = strtoll(s, NULL, 10);
    *overflow = errno == ERANGE;
    return true;
}

static bool parse_u64(const char *s, uint64_t *out, bool *overflow)
{
    const char *digits = *s == '+' ? s + 1 : s;
    if (!all_digits(digits))
        return false;
    errno = 0;
    unsigned long long v = strtoull(digits, NULL, 10);
    *overflow = errno == ERANGE || v > UINT64_MAX;
    *out = (uint64_t)v;
    return true;
}

/* Plain decimal notation; strtod alone would also take "inf" and hex. */
static bool parse_number(const char *s, double *out)
{
    if (!*s || strspn(s, "0123456789+-.eE") != strlen(s))
        return false;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (*end || errno == ERANGE || !isfinite(v))
        return false;
    *out = v;
    return true;
}

static bool parse_bool(const char *s, bool *out)
{
    if (strcasecmp(s, "true") == 0 || strcasecmp(s, "yes") == 0)
        *out = true;
    else if (strcasecmp(s, "false") == 0 || strcasecmp(s, "no") == 0)
        *out = false;
    else
        return false;
    return true;
}

static bool in_range(const struct key *k, double v)
{
    if (k->flags & F_MIN && (k->flags & F_MIN_OPEN ? v <= k->min : v < k->min))
        return false;
    if (k->flags & F_MAX && (k->flags & F_MAX_OPEN ? v >= k->max : v > k->max))
        return false;
    return true;
}

/* An integer in the key's range that also fits in [lo, hi] (its C type). */
static int read_int(const struct loader *ld, const struct key *k, const char *name,
                    const yaml_node_t *node, long long lo, long long hi,
                    long long *out)
{
    bool overflow = false;
    if (!is_plain(node) || is_null(node) || !parse_int(scalar_text(node), out, &overflow))
        return fail_value(ld, k, name, node, "is not an integer");
    if (overflow || *out < lo || *out > hi || !in_range(k, (double)*out))
        return fail_value(ld, k, name, node, "is out of range");
    if (k->flags & F_EVEN && *out % 2 != 0)
        return fail_value(ld, k, name, node, "is odd");
    return 0;
}

static int read_number(const struct loader *ld, const struct key *k,
                       const char *name, const yaml_node_t *node, double *out)
{
    if (!is_plain(node) || !parse_number(scalar_text(node), out))
        return fail_value(ld, k, name, node, "is not a number");
    if (!in_range(k, *out))
        return fail_value(ld, k, name, node, "is out of range");
    return 0;
}

static int read_enum(const struct loader *ld, const struct key *k,
                     const char *name, const yaml_node_t *node, int *out)
{
    if (node->type == YAML_SCALAR_NODE)
        for (int i = 0; k->names[i]; i++)
            if (strcmp(scalar_text(node), k->names[i]) == 0) {
                *out = i;
                return 0;
            }
    return fail_value(ld, k, name, node, "is not a known name");
}

/* NULL if the template is usable, else what is wrong with it. */
static const char *template_problem(const char *s, char *buf, size_t size)
{
    bool dataset = false, stem = false;
    for (const char *p = strchr(s, '{'); p; p = strchr(p + 1, '{')) {
        const char *close = strchr(p, '}');
        if (!close)
            return "has an unclosed {";
        size_t len = (size_t)(close - p) + 1;
        if (len == 9 && strncmp(p, "{dataset}", len) == 0)
            dataset = true;
        else if ((len == 6 && strncmp(p, "{stem}", len) == 0)
                 || (len == 6 && strncmp(p, "{file}", len) == 0))
            stem = true;
        else {
            snprintf(buf, size, "has the unknown placeholder %.*s",
                     len > 40 ? 40 : (int)len, p);
            return buf;
        }
    }
    if (!dataset)
        return "lacks {dataset}";
    if (!stem)
        return "lacks {stem} or {file}";
    return NULL;
}

static int set_string(const struct loader *ld, const struct key *k,
                      const char *name, const yaml_node_t *node, char **field)
{
    if (node->type != YAML_SCALAR_NODE)
        return fail_value(ld, k, name, node, "is the wrong type");
    const char *s = is_null(node) ? "" : scalar_text(node);
    if (!*s && k->flags & F_NONEMPTY)
        return fail_value(ld, k, name, node, "is empty");
    char why[96];
    const char *problem = k->kind == K_TEMPLATE ? template_problem(s, why, sizeof why) : NULL;
    if (problem)
        return fail_value(ld, k, name, node, problem);
    char *copy = NULL;
    if (*s || !(k->flags & F_EMPTY_NULL)) {
        copy = strdup(s);
        if (!copy)
            return cuplas_error_set(ld->err, CUPLAS_ERR_NOMEM, "out of memory");
    }
    free(*field);
    *field = copy;
    return 0;
}

static int set_scalar(const struct loader *ld, const struct key *k,
                      const char *name, const yaml_node_t *node, void *field)
{
    long long v = 0;
    int rc = 0;
    switch (k->kind) {
    case K_BOOL:
        if (!is_plain(node) || !parse_bool(scalar_text(node), field))
            return fail_value(ld, k, name, node, "is not a boolean");
        return 0;
    case K_INT:
        rc = read_int(ld, k, name, node, INT_MIN, INT_MAX, &v);
        if (rc == 0)
            *(int *)field = (int)v;
        return rc;
    case K_I64:
        rc = read_int(ld, k, name, node, INT64_MIN, INT64_MAX, &v);
        if (rc == 0)
            *(int64_t *)field = (int64_t)v;
        return rc;
    case K_U64: {
        bool overflow = false;
        if (!is_plain(node) || !parse_u64(scalar_text(node), field, &overflow))
            return fail_value(ld, k, name, node, "is not an unsigned integer");
        if (overflow)
            return fail_value(ld, k, name, node, "is out of range");
        return 0;
    }
    case K_NUM:
        return read_number(ld, k, name, node, field);
    case K_ENUM:
        return read_enum(ld, k, name, node, field);
    case K_STR:
    case K_TEMPLATE:
        return set_string(ld, k, name, node, field);
    default:
        return cuplas_error_set(ld->err, CUPLAS_ERR_INTERNAL, "%s: not a scalar key", name);
    }
}

/* ------------------------------------------------------------------------
 * Lists
 * ------------------------------------------------------------------------ */

/* Items of a sequence; a lone scalar counts as a one-item list where the
 * key allows that shorthand (strings, channel ranges). */
static size_t item_count(const yaml_node_t *node)
{
    if (node->type == YAML_SEQUENCE_NODE)
        return (size_t)(node->data.sequence.items.top - node->data.sequence.items.start);
    return 1;
}

static const yaml_node_t *item_at(struct loader *ld, const yaml_node_t *node, size_t i)
{
    if (node->type != YAML_SEQUENCE_NODE)
        return node;
    return yaml_document_get_node(&ld->doc, node->data.sequence.items.start[i]);
}

static void free_strv(char **v, int n)
{
    for (int i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

static int set_strlist(struct loader *ld, const struct key *k, const char *name,
                       const yaml_node_t *node, void *base)
{
    char ***field = (char ***)((char *)base + k->off);
    int *count = (int *)((char *)base + k->n_off);
    char **v = NULL;
    size_t n = 0;
    int rc = 0;

    if (node->type == YAML_MAPPING_NODE || is_null(node))
        CUPLAS_TRY(fail_value(ld, k, name, node, "is the wrong type"));
    size_t want = item_count(node);
    if (want == 0 && k->flags & F_NONEMPTY)
        CUPLAS_TRY(fail_value(ld, k, name, node, "is empty"));
    if (want > INT_MAX)
        CUPLAS_TRY(fail_value(ld, k, name, node, "is too long"));
    if (want && !(v = calloc(want, sizeof *v)))
        CUPLAS_FAIL(ld->err, CUPLAS_ERR_NOMEM, "out of memory");
    for (; n < want; n++) {
        const yaml_node_t *item = item_at(ld, node, n);
        if (item->type != YAML_SCALAR_NODE || is_null(item) || !*scalar_text(item))
            CUPLAS_TRY(fail_value(ld, k, name, item, "is not a non-empty string"));
        if (!(v[n] = strdup(scalar_text(item))))
            CUPLAS_FAIL(ld->err, CUPLAS_ERR_NOMEM, "out of memory");
    }
    free_strv(*field, *count);
    *field = v;
    *count = (int)n;
    return 0;
fail:
    free_strv(v, (int)n);
    return rc;
}

/* "3-5" in channels.use (quoted or not); lo <= hi is the caller's check. */
static bool parse_range(const char *s, long long *lo, long long *hi)
{
    const char *dash = strchr(s, '-');
    if (!dash || dash == s)
        return false;
    char first[24];
    size_t len = (size_t)(dash - s);
    if (len >= sizeof first)
        return false;
    memcpy(first, s, len);
    first[len] = '\0';
    if (!all_digits(first) || !all_digits(dash + 1))
        return false;
    errno = 0;
    *lo = strtoll(first, NULL, 10);
    *hi = strtoll(dash + 1, NULL, 10);
    return errno == 0;
}

/* One item of an int list as [lo, hi]: an integer, or a channel range. */
static int read_int_item(struct loader *ld, const struct key *k, const char *name,
                         const yaml_node_t *item, long long *lo, long long *hi)
{
    if (k->kind == K_CHANNELS && item->type == YAML_SCALAR_NODE
        && parse_range(scalar_text(item), lo, hi)) {
        if (*lo > *hi)
            return fail_value(ld, k, name, item, "is a descending range");
        if (!in_range(k, (double)*lo) || !in_range(k, (double)*hi))
            return fail_value(ld, k, name, item, "is out of range");
        return 0;
    }
    int rc = read_int(ld, k, name, item, INT_MIN, INT_MAX, lo);
    *hi = *lo;
    return rc;
}

static int set_intlist(struct loader *ld, const struct key *k, const char *name,
                       const yaml_node_t *node, void *base)
{
    int **field = (int **)((char *)base + k->off);
    int *count = (int *)((char *)base + k->n_off);
    unsigned char *taken = NULL;   /* bitmap over [0, max]: duplicates   */
    int *v = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;

    bool all = k->kind == K_CHANNELS && is_plain(node) && strcmp(scalar_text(node), "all") == 0;
    bool shorthand = k->kind == K_CHANNELS && node->type == YAML_SCALAR_NODE && !is_null(node);
    if (!all && node->type != YAML_SEQUENCE_NODE && !shorthand)
        CUPLAS_TRY(fail_value(ld, k, name, node, "is the wrong type"));
    if (k->kind == K_CHANNELS && !all && item_count(node) == 0)
        CUPLAS_TRY(fail_value(ld, k, name, node, "is empty"));
    if (!(taken = calloc((size_t)k->max / 8 + 1, 1)))
        CUPLAS_FAIL(ld->err, CUPLAS_ERR_NOMEM, "out of memory");
    for (size_t i = 0; !all && i < item_count(node); i++) {
        const yaml_node_t *item = item_at(ld, node, i);
        long long lo = 0, hi = 0;
        CUPLAS_TRY(read_int_item(ld, k, name, item, &lo, &hi));
        for (long long c = lo; c <= hi; c++) {
            if (taken[c / 8] & (1u << (c % 8))) {
                char val[24];
                snprintf(val, sizeof val, "%lld", c);
                CUPLAS_TRY(fail_at(ld, item, "%s: %s is listed twice (accepted: "
                                   "each value once)", name, val));
            }
            taken[c / 8] |= (unsigned char)(1u << (c % 8));
            if (n == cap) {
                size_t grown = cap ? 2 * cap : 8;
                int *bigger = realloc(v, grown * sizeof *v);
                if (!bigger)
                    CUPLAS_FAIL(ld->err, CUPLAS_ERR_NOMEM, "out of memory");
                v = bigger;
                cap = grown;
            }
            v[n++] = (int)c;
        }
    }
    free(*field);
    *field = v;
    *count = (int)n;
    free(taken);
    return 0;
fail:
    free(v);
    free(taken);
    return rc;
}

static int set_numlist(struct loader *ld, const struct key *k, const char *name,
                       const yaml_node_t *node, void *base)
{
    double **field = (double **)((char *)base + k->off);
    int *count = (int *)((char *)base + k->n_off);
    double *v = NULL;
    size_t n = 0;
    int rc = 0;

    if (node->type != YAML_SEQUENCE_NODE)
        CUPLAS_TRY(fail_value(ld, k, name, node, "is the wrong type"));
    size_t want = item_count(node);
    if (want > INT_MAX)
        CUPLAS_TRY(fail_value(ld, k, name, node, "is too long"));
    if (want && !(v = calloc(want, sizeof *v)))
        CUPLAS_FAIL(ld->err, CUPLAS_ERR_NOMEM, "out of memory");
    for (; n < want; n++)
        CUPLAS_TRY(read_number(ld, k, name, item_at(ld, node, n), &v[n]));
    free(*field);
    *field = v;
    *count = (int)n;
    return 0;
fail:
    free(v);
    return rc;
}

static void free_input(cuplas_input_spec *in)
{
    free_strv(in->files, in->nfiles);
    free_strv(in->datasets, in->ndatasets);
    memset(in, 0, sizeof *in);
}

static int set_inputs(struct loader *ld, const struct key *k, const char *name,
                      const yaml_node_t *node, cuplas_config *cfg)
{
    int rc = 0;

    if (node->type != YAML_SEQUENCE_NODE)
        return fail_value(ld, k, name, node, "is the wrong type");
    size_t n = item_count(node);
    if (n > INT_MAX)
        return fail_value(ld, k, name, node, "is too long");
    for (int i = 0; i < cfg->ninputs; i++)
        free_input(&cfg->inputs[i]);
    free(cfg->inputs);
    cfg->inputs = NULL;
    cfg->ninputs = 0;
    if (n && !(cfg->inputs = calloc(n, sizeof *cfg->inputs)))
        CUPLAS_FAIL(ld->err, CUPLAS_ERR_NOMEM, "out of memory");
    cfg->ninputs = (int)n;   /* set first: a partial list is still freed */

    for (size_t i = 0; i < n; i++) {
        const yaml_node_t *entry = item_at(ld, node, i);
        const yaml_node_t *seen[NINPUT_KEYS] = { NULL };
        char shown[224], val[80], acc[256];
        snprintf(shown, sizeof shown, "%s[%zu].", name, i);
        if (entry->type != YAML_MAPPING_NODE)
            CUPLAS_TRY(fail_at(ld, entry, "%s[%zu]: %s is the wrong type (accepted: %s)",
                               name, i, describe(entry, val, sizeof val),
                               accepted(k, acc, sizeof acc)));
        cfg->inputs[i].line = from_file(ld, entry) ? (int)entry->start_mark.line + 1 : 0;
        CUPLAS_TRY(walk_mapping(ld, entry, "", shown, input_keys, NINPUT_KEYS,
                                &cfg->inputs[i], seen));
        for (size_t r = 0; r < NINPUT_KEYS; r++)
            if (input_keys[r].flags & F_REQUIRED && !seen[r])
                CUPLAS_TRY(fail_at(ld, entry, "%s%s: missing (accepted: %s)", shown,
                                   input_keys[r].name,
                                   accepted(&input_keys[r], acc, sizeof acc)));
    }
    return 0;
fail:
    return rc;   /* the entries read so far stay in cfg, which the caller frees */
}

/* ------------------------------------------------------------------------
 * The schema walk
 * ------------------------------------------------------------------------ */

static const struct key *find_key(const struct key *keys, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(keys[i].name, name) == 0)
            return &keys[i];
    return NULL;
}

/* Is `path` a section, i.e. the prefix of some dotted key? */
static bool is_section(const struct key *keys, size_t n, const char *path)
{
    size_t len = strlen(path);
    for (size_t i = 0; i < n; i++)
        if (strncmp(keys[i].name, path, len) == 0 && keys[i].name[len] == '.')
            return true;
    return false;
}

/* "seed, permuter, ...": the names accepted right under `prefix`. */
static const char *children(const struct key *keys, size_t n, const char *prefix,
                            char *buf, size_t size)
{
    size_t plen = strlen(prefix), len = 0;
    const char *last = NULL;
    size_t lastlen = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && len < size; i++) {
        if (strncmp(keys[i].name, prefix, plen) != 0)
            continue;
        const char *child = keys[i].name + plen;
        size_t clen = strcspn(child, ".");
        if (last && clen == lastlen && strncmp(child, last, clen) == 0)
            continue;
        len += (size_t)snprintf(buf + len, size - len, "%s%.*s", last ? ", " : "",
                                (int)clen, child);
        last = child;
        lastlen = clen;
    }
    return buf;
}

static int fail_unknown(const struct loader *ld, const yaml_node_t *node,
                        const struct key *keys, size_t nkeys, const char *prefix,
                        const char *shown, const char *key)
{
    char names[512], label[64];
    if (*prefix)
        snprintf(label, sizeof label, "in %.*s", (int)strlen(prefix) - 1, prefix);
    else
        snprintf(label, sizeof label, "%s", *shown ? "in an input" : "at the top level");
    return fail_at(ld, node, "%s%s%s: unknown key (accepted %s: %s)", shown,
                   prefix, key, label, children(keys, nkeys, prefix, names, sizeof names));
}

static int set_value(struct loader *ld, const struct key *k, const char *name,
                     const yaml_node_t *node, void *base)
{
    switch (k->kind) {
    case K_STRLIST:
        return set_strlist(ld, k, name, node, base);
    case K_INTLIST:
    case K_CHANNELS:
        return set_intlist(ld, k, name, node, base);
    case K_NUMLIST:
        return set_numlist(ld, k, name, node, base);
    case K_INPUTS:
        return set_inputs(ld, k, name, node, base);
    default:
        return set_scalar(ld, k, name, node, (char *)base + k->off);
    }
}

/* A key twice in one mapping is an error: libyaml keeps both silently. */
static int check_duplicates(const struct loader *ld, const yaml_node_t *map,
                            const char *prefix, const char *shown)
{
    const yaml_node_pair_t *pairs = map->data.mapping.pairs.start;
    size_t n = (size_t)(map->data.mapping.pairs.top - pairs);
    yaml_document_t *doc = (yaml_document_t *)&ld->doc;
    for (size_t i = 1; i < n; i++) {
        const yaml_node_t *ki = yaml_document_get_node(doc, pairs[i].key);
        for (size_t j = 0; j < i && ki->type == YAML_SCALAR_NODE; j++) {
            const yaml_node_t *kj = yaml_document_get_node(doc, pairs[j].key);
            if (kj->type == YAML_SCALAR_NODE && strcmp(scalar_text(ki), scalar_text(kj)) == 0)
                return fail_at(ld, ki, "%s%s%s: duplicate key (accepted: each key "
                               "once per mapping)", shown, prefix, scalar_text(ki));
        }
    }
    return 0;
}

static int walk_mapping(struct loader *ld, const yaml_node_t *map,
                        const char *prefix, const char *shown,
                        const struct key *keys, size_t nkeys, void *base,
                        const yaml_node_t **seen)
{
    int rc = check_duplicates(ld, map, prefix, shown);
    if (rc)
        return rc;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start;
         p < map->data.mapping.pairs.top; p++) {
        const yaml_node_t *key = yaml_document_get_node(&ld->doc, p->key);
        const yaml_node_t *value = yaml_document_get_node(&ld->doc, p->value);
        char path[128], name[192], val[80], names[512];
        /* sizeof path - 1: leave room for the '.' appended to a section */
        if (key->type != YAML_SCALAR_NODE
            || strlen(prefix) + key->data.scalar.length >= sizeof path - 1)
            return fail_at(ld, key, "%s%s: a key must be a short name", shown, prefix);
        snprintf(path, sizeof path, "%s%s", prefix, scalar_text(key));
        snprintf(name, sizeof name, "%s%s", shown, path);

        const struct key *k = find_key(keys, nkeys, path);
        if (k) {
            rc = set_value(ld, k, name, value, base);
            if (rc)
                return rc;
            seen[k - keys] = value;
        } else if (is_section(keys, nkeys, path)) {
            strcat(path, ".");
            if (value->type != YAML_MAPPING_NODE)
                return fail_at(ld, value, "%s: %s is the wrong type (accepted: a "
                               "mapping with keys %s)", name, describe(value, val, sizeof val),
                               children(keys, nkeys, path, names, sizeof names));
            rc = walk_mapping(ld, value, path, shown, keys, nkeys, base, seen);
            if (rc)
                return rc;
        } else {
            return fail_unknown(ld, key, keys, nkeys, prefix, shown, scalar_text(key));
        }
    }
    return 0;
}

/* The node that set config key `name`, NULL if it kept its default. */
static const yaml_node_t *seen_node(const struct loader *ld, const char *name)
{
    return ld->seen[find_key(config_keys, NCONFIG_KEYS, name) - config_keys];
}

/* Rules that involve more than one key, once every key is read. */
static int check_config(struct loader *ld, const cuplas_config *cfg)
{
    const struct key *in = find_key(config_keys, NCONFIG_KEYS, "inputs");
    const yaml_node_t *in_node = seen_node(ld, "inputs");
    const yaml_node_t *lo = seen_node(ld, "sort.min_configs");
    const yaml_node_t *hi = seen_node(ld, "sort.max_configs");
    const yaml_node_t *w = seen_node(ld, "channels.weights");
    char acc[256];

    if (ld->path && !in_node) {
        cuplas_error_where(ld->err, "%s", ld->path);
        return cuplas_error_set(ld->err, CUPLAS_ERR_USAGE, "inputs: missing, a config "
                                "file needs at least one (accepted: %s)",
                                accepted(in, acc, sizeof acc));
    }
    if (ld->path && cfg->ninputs == 0)
        return fail_value(ld, in, "inputs", in_node, "is empty");
    if (cfg->sort.max_configs < cfg->sort.min_configs)
        return fail_at(ld, hi ? hi : lo, "sort.max_configs: %d is less than "
                       "sort.min_configs (%d) (accepted: sort.max_configs >= "
                       "sort.min_configs)", cfg->sort.max_configs, cfg->sort.min_configs);
    if (cfg->channels.use && cfg->channels.nweights
        && cfg->channels.nweights != cfg->channels.nuse)
        return fail_at(ld, w, "channels.weights: %d weights for %d channels in "
                       "channels.use (accepted: one weight per used channel, or [])",
                       cfg->channels.nweights, cfg->channels.nuse);
    return 0;
}

/* ------------------------------------------------------------------------
 * Reading the file and grafting the overrides
 * ------------------------------------------------------------------------ */

/* A libyaml failure; `text` and `key` are set for an override's value. */
static int fail_parse(const struct loader *ld, const yaml_parser_t *parser,
                      const char *text, const char *key)
{
    const char *problem = parser->problem ? parser->problem : "unknown problem";
    if (parser->error == YAML_MEMORY_ERROR)
        return cuplas_error_set(ld->err, CUPLAS_ERR_NOMEM, "out of memory parsing YAML");
    if (text) {
        cuplas_error_where(ld->err, "--set %s", text);
        return cuplas_error_set(ld->err, CUPLAS_ERR_USAGE, "%s: the value is not valid "
                                "YAML: %s (accepted: a YAML scalar or flow list, e.g. "
                                "[0, 1])", key, problem);
    }
    if (parser->error == YAML_READER_ERROR)
        cuplas_error_where(ld->err, "%s", ld->path);
    else
        cuplas_error_where(ld->err, "%s:%zu:%zu", ld->path,
                           parser->problem_mark.line + 1, parser->problem_mark.column + 1);
    if (parser->error == YAML_READER_ERROR)
        return cuplas_error_set(ld->err, CUPLAS_ERR_USAGE, "YAML: %s at byte %zu",
                                problem, parser->problem_offset);
    return cuplas_error_set(ld->err, CUPLAS_ERR_USAGE, "YAML syntax error: %s%s%s",
                            problem, parser->context ? " " : "",
                            parser->context ? parser->context : "");
}

/* Load the one document of ld->path into ld->doc. */
static int read_document(struct loader *ld)
{
    yaml_parser_t parser;
    yaml_document_t extra;
    bool have_parser = false, have_doc = false;
    int rc = 0;
    FILE *f = fopen(ld->path, "rb");

    if (!f) {
        cuplas_error_where(ld->err, "%s", ld->path);
        CUPLAS_FAIL(ld->err, CUPLAS_ERR_USAGE, "cannot open the config file: %s",
                    strerror(errno));
    }
    if (!yaml_parser_initialize(&parser))
        CUPLAS_FAIL(ld->err, CUPLAS_ERR_NOMEM, "out of memory");
    have_parser = true;
    yaml_parser_set_input_file(&parser, f);
    if (!yaml_parser_load(&parser, &ld->doc))
        CUPLAS_TRY(fail_parse(ld, &parser, NULL, NULL));
    have_doc = true;
    /* a second document would be ignored silently: refuse it */
    if (!yaml_parser_load(&parser, &extra))
        CUPLAS_TRY(fail_parse(ld, &parser, NULL, NULL));
    const yaml_node_t *root2 = yaml_document_get_root_node(&extra);
    size_t line = root2 ? root2->start_mark.line + 1 : 0;
    yaml_document_delete(&extra);
    if (line) {
        cuplas_error_where(ld->err, "%s:%zu:1", ld->path, line);
        CUPLAS_FAIL(ld->err, CUPLAS_ERR_USAGE, "a second YAML document (accepted: "
                    "one document per config file)");
    }
    yaml_parser_delete(&parser);
    fclose(f);
    return 0;
fail:
    if (have_doc)
        yaml_document_delete(&ld->doc);
    if (have_parser)
        yaml_parser_delete(&parser);
    if (f)
        fclose(f);
    return rc;
}

/* Copy node `id` of `src` into ld->doc; returns the new id, 0 when out of
 * memory, -1 when nested too deep (aliases can make a YAML graph cyclic). */
static int copy_node(yaml_document_t *dst, yaml_document_t *src, int id, int depth)
{
    const yaml_node_t *n = yaml_document_get_node(src, id);
    if (depth > 16)
        return -1;
    if (n->type == YAML_SCALAR_NODE)
        return yaml_document_add_scalar(dst, NULL, n->data.scalar.value,
                                        (int)n->data.scalar.length, n->data.scalar.style);
    if (n->type == YAML_SEQUENCE_NODE) {
        int seq = yaml_document_add_sequence(dst, NULL, YAML_FLOW_SEQUENCE_STYLE);
        for (yaml_node_item_t *it = n->data.sequence.items.start;
             seq > 0 && it < n->data.sequence.items.top; it++) {
            int item = copy_node(dst, src, *it, depth + 1);
            if (item <= 0)
                return item;
            if (!yaml_document_append_sequence_item(dst, seq, item))
                return 0;
        }
        return seq;
    }
    int map = yaml_document_add_mapping(dst, NULL, YAML_FLOW_MAPPING_STYLE);
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start;
         map > 0 && p < n->data.mapping.pairs.top; p++) {
        int key = copy_node(dst, src, p->key, depth + 1);
        int value = key > 0 ? copy_node(dst, src, p->value, depth + 1) : key;
        if (value <= 0)
            return value;
        if (!yaml_document_append_mapping_pair(dst, map, key, value))
            return 0;
    }
    return map;
}

/* Pair index of `key` in mapping `map`, or -1. */
static int find_pair(yaml_document_t *doc, int map, const char *key, size_t len)
{
    yaml_node_t *m = yaml_document_get_node(doc, map);
    for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
        const yaml_node_t *k = yaml_document_get_node(doc, p->key);
        if (k->type == YAML_SCALAR_NODE && k->data.scalar.length == len
            && memcmp(k->data.scalar.value, key, len) == 0)
            return (int)(p - m->data.mapping.pairs.start);
    }
    return -1;
}

/* The node an override sets: a copy of the value's root, or "" for none. */
static int copy_value(struct loader *ld, yaml_document_t *value)
{
    if (!yaml_document_get_root_node(value))
        return yaml_document_add_scalar(&ld->doc, NULL, (yaml_char_t *)"", 0,
                                        YAML_PLAIN_SCALAR_STYLE);
    return copy_node(&ld->doc, value, 1, 0);
}

/* Put `value` at dotted `key`, creating missing mappings. Works on ids, not
 * pointers: adding nodes reallocates the node array. */
static int graft(struct loader *ld, const char *key, yaml_document_t *value,
                 const char *text)
{
    yaml_document_t *doc = &ld->doc;
    int cur = 1;   /* libyaml's root is always node 1 */

    if (!yaml_document_get_root_node(doc)
        && !yaml_document_add_mapping(doc, NULL, YAML_BLOCK_MAPPING_STYLE))
        return cuplas_error_set(ld->err, CUPLAS_ERR_NOMEM, "out of memory");
    for (const char *part = key;; part += strcspn(part, ".") + 1) {
        size_t len = strcspn(part, ".");
        bool last = part[len] == '\0';
        int at = find_pair(doc, cur, part, len);
        int child;

        if (at >= 0 && !last) {
            child = yaml_document_get_node(doc, cur)->data.mapping.pairs.start[at].value;
            const yaml_node_t *c = yaml_document_get_node(doc, child);
            if (c->type != YAML_MAPPING_NODE) {
                cuplas_error_where(ld->err, "--set %s", text);
                return cuplas_error_set(ld->err, CUPLAS_ERR_USAGE, "%s: %.*s is not a "
                                        "mapping in the config file (line %zu)", key,
                                        (int)(part + len - key), key, c->start_mark.line + 1);
            }
            cur = child;
            continue;
        }
        child = last ? copy_value(ld, value)
                     : yaml_document_add_mapping(doc, NULL, YAML_BLOCK_MAPPING_STYLE);
        if (child < 0) {
            cuplas_error_where(ld->err, "--set %s", text);
            return cuplas_error_set(ld->err, CUPLAS_ERR_USAGE, "%s: the value is nested "
                                    "too deeply", key);
        }
        if (child == 0)
            return cuplas_error_set(ld->err, CUPLAS_ERR_NOMEM, "out of memory");
        if (at >= 0) {
            yaml_document_get_node(doc, cur)->data.mapping.pairs.start[at].value = child;
        } else {
            int k = yaml_document_add_scalar(doc, NULL, (const yaml_char_t *)part,
                                             (int)len, YAML_PLAIN_SCALAR_STYLE);
            if (!k || !yaml_document_append_mapping_pair(doc, cur, k, child))
                return cuplas_error_set(ld->err, CUPLAS_ERR_NOMEM, "out of memory");
        }
        if (last)
            return 0;
        cur = child;
    }
}

/* "--set sort.sed=1": list what the deepest known section accepts. */
static int fail_unknown_override(const struct loader *ld, const char *text,
                                 const char *key)
{
    char section[128], prefix[130], names[512];
    const char *dot = strrchr(key, '.');
    snprintf(section, sizeof section, "%.*s", dot ? (int)(dot - key) : 0, key);
    if (!is_section(config_keys, NCONFIG_KEYS, section))
        section[0] = '\0';
    snprintf(prefix, sizeof prefix, "%s%s", section, section[0] ? "." : "");
    cuplas_error_where(ld->err, "--set %s", text);
    return cuplas_error_set(ld->err, CUPLAS_ERR_USAGE, "%s: unknown key (accepted %s%s: %s)",
                            key, section[0] ? "in " : "at the top level", section,
                            children(config_keys, NCONFIG_KEYS, prefix, names, sizeof names));
}

/* Apply override k ("a.b=value") onto ld->doc. */
static int apply_override(struct loader *ld, int k)
{
    const char *text = ld->ovr[k].text;
    const char *eq = strchr(text, '=');
    yaml_parser_t parser;
    yaml_document_t value;
    bool have_parser = false, have_value = false;
    char key[128];
    int rc = 0;

    if (!eq || eq == text || (size_t)(eq - text) >= sizeof key) {
        cuplas_error_where(ld->err, "--set %s", text);
        CUPLAS_FAIL(ld->err, CUPLAS_ERR_USAGE, "expected key=value (accepted: a "
                    "dotted key and a YAML value, e.g. sort.seed=7)");
    }
    memcpy(key, text, (size_t)(eq - text));
    key[eq - text] = '\0';
    if (!find_key(config_keys, NCONFIG_KEYS, key))
        CUPLAS_TRY(fail_unknown_override(ld, text, key));
    if (!yaml_parser_initialize(&parser))
        CUPLAS_FAIL(ld->err, CUPLAS_ERR_NOMEM, "out of memory");
    have_parser = true;
    yaml_parser_set_input_string(&parser, (const unsigned char *)eq + 1, strlen(eq + 1));
    if (!yaml_parser_load(&parser, &value))
        CUPLAS_TRY(fail_parse(ld, &parser, text, key));
    have_value = true;
    ld->ovr[k].first = (int)(ld->doc.nodes.top - ld->doc.nodes.start) + 1;
    CUPLAS_TRY(graft(ld, key, &value, text));
    rc = 0;
fail:
    if (have_value)
        yaml_document_delete(&value);
    if (have_parser)
        yaml_parser_delete(&parser);
    return rc;
}

static int apply_overrides(struct loader *ld, const char *const *overrides, int n)
{
    if (n <= 0)
        return 0;
    if (!(ld->ovr = calloc((size_t)n, sizeof *ld->ovr)))
        return cuplas_error_set(ld->err, CUPLAS_ERR_NOMEM, "out of memory");
    ld->novr = n;
    for (int k = 0; k < n; k++) {
        ld->ovr[k].first = INT_MAX;   /* owns no node until it is grafted */
        ld->ovr[k].text = overrides[k];
    }
    for (int k = 0; k < n; k++) {
        int rc = apply_override(ld, k);
        if (rc)
            return rc;
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * YAML output
 * ------------------------------------------------------------------------ */

/* A growing string; the first failed allocation poisons it (s = NULL). */
struct sbuf {
    char *s;
    size_t len, cap;
    bool failed;
};

static void put(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct sbuf *b, const char *fmt, ...)
{
    va_list ap;
    if (b->failed)
        return;
    va_start(ap, fmt);
    int need = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (need < 0 || b->len + (size_t)need + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (need >= 0 && b->len + (size_t)need + 1 > cap)
            cap *= 2;
        char *grown = need < 0 ? NULL : realloc(b->s, cap);
        if (!grown) {
            free(b->s);
            *b = (struct sbuf){ .failed = true };
            return;
        }
        b->s = grown;
        b->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    b->len += (size_t)need;
}

/* Shortest of %.15g..%.17g that reads back to the same bits: always exact
 * (%.17g is), and 0.95 stays "0.95" in the params attribute. */
static void put_double(struct sbuf *b, double v)
{
    char text[32];
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(text, sizeof text, "%.*g", prec, v);
        if (strtod(text, NULL) == v)
            break;
    }
    put(b, "%s", text);
}

/* Double-quoted YAML string: the one form that never needs guessing. */
static void put_quoted(struct sbuf *b, const char *s)
{
    put(b, "\"");
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        if (*p == '"' || *p == '\\')
            put(b, "\\%c", *p);
        else if (*p < 0x20 || *p == 0x7f)
            put(b, "\\x%02x", *p);
        else
            put(b, "%c", *p);
    }
    put(b, "\"");
}

static const char *enum_name(const char *const *names, int v)
{
    for (int i = 0; names[i]; i++)
        if (i == v)
            return names[i];
    return "?";
}

/* One value in flow form; `inputs` is multi-line and handled by put_inputs. */
static void put_value(struct sbuf *b, const struct key *k, const void *base)
{
    const char *field = (const char *)base + k->off;
    int n = k->n_off ? *(const int *)((const char *)base + k->n_off) : 0;
    switch (k->kind) {
    case K_BOOL: put(b, "%s", *(const bool *)field ? "true" : "false"); break;
    case K_INT: put(b, "%d", *(const int *)field); break;
    case K_I64: put(b, "%" PRId64, *(const int64_t *)field); break;
    case K_U64: put(b, "%" PRIu64, *(const uint64_t *)field); break;
    case K_NUM: put_double(b, *(const double *)field); break;
    case K_ENUM: put(b, "%s", enum_name(k->names, *(const int *)field)); break;
    case K_STR:
    case K_TEMPLATE: put_quoted(b, *(char *const *)field); break;
    case K_STRLIST:
        put(b, "[");
        for (int i = 0; i < n; i++) {
            put(b, "%s", i ? ", " : "");
            put_quoted(b, (*(char **const *)field)[i]);
        }
        put(b, "]");
        break;
    case K_CHANNELS:
    case K_INTLIST:
        if (k->kind == K_CHANNELS && !*(int *const *)field) {
            put(b, "all");
            break;
        }
        put(b, "[");
        for (int i = 0; i < n; i++)
            put(b, "%s%d", i ? ", " : "", (*(int *const *)field)[i]);
        put(b, "]");
        break;
    case K_NUMLIST:
        put(b, "[");
        for (int i = 0; i < n; i++) {
            put(b, "%s", i ? ", " : "");
            put_double(b, (*(double *const *)field)[i]);
        }
        put(b, "]");
        break;
    case K_INPUTS:   /* block form only: put_inputs */
        put(b, "[...]");
        break;
    }
}

static void put_inputs(struct sbuf *b, const cuplas_config *cfg)
{
    if (cfg->ninputs == 0) {
        put(b, "inputs: []\n");
        return;
    }
    put(b, "inputs:\n");
    for (int i = 0; i < cfg->ninputs; i++)
        for (size_t r = 0; r < NINPUT_KEYS; r++) {
            put(b, "%s%s: ", r ? "    " : "  - ", input_keys[r].name);
            put_value(b, &input_keys[r], &cfg->inputs[i]);
            put(b, "\n");
        }
}

static bool wanted(const char *const *sections, const char *name, size_t len)
{
    if (!sections)
        return true;
    for (; *sections; sections++)
        if (strlen(*sections) == len && strncmp(*sections, name, len) == 0)
            return true;
    return false;
}

/* The sections of cfg named in `sections` (NULL: all), in schema order. */
static char *emit_yaml(const cuplas_config *cfg, const char *const *sections)
{
    struct sbuf b = { 0 };
    const char *section = NULL;   /* the section whose header was written */
    size_t seclen = 0;
    for (size_t i = 0; i < NCONFIG_KEYS; i++) {
        const struct key *k = &config_keys[i];
        size_t len = strcspn(k->name, ".");
        if (!wanted(sections, k->name, len))
            continue;
        if (k->kind == K_INPUTS) {
            put_inputs(&b, cfg);
            continue;
        }
        if (!section || seclen != len || strncmp(section, k->name, len) != 0)
            put(&b, "%.*s:\n", (int)len, k->name);
        section = k->name;
        seclen = len;
        put(&b, "  %s: ", k->name + len + 1);
        put_value(&b, k, cfg);
        put(&b, "\n");
    }
    if (!b.s && !b.failed)
        return strdup("");
    return b.s;
}

/* ------------------------------------------------------------------------
 * Public API
 * ------------------------------------------------------------------------ */

void cuplas_config_defaults(cuplas_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    /* strdup can fail here; cuplas_config_load checks for the NULLs */
    cfg->path = strdup("");
    cfg->base_dir = strdup(".");
    cfg->output.dir = strdup("cuplas-out");
    cfg->output.name = strdup("{stem}.{dataset}.h5");
    cfg->output.overwrite = CUPLAS_OVERWRITE_SKIP;
    cfg->output.chunk_rows = 0;
    cfg->output.deflate = 4;
    cfg->output.shuffle = true;
    cfg->output.fsync = true;
    cuplas_sort_params_default(&cfg->sort);
    cfg->channels.normalize = CUPLAS_NORM_NONE;
    cfg->backend.device = CUPLAS_DEVICE_AUTO;
    cfg->backend.cpu_fallback = false;
    cfg->backend.threads = 0;
    cfg->backend.lanes = 4;
    cfg->backend.h5_helpers = -1;
    cfg->backend.memory_limit_mb = 0;
    cfg->log.level = CUPLAS_LOG_INFO;
    cfg->log.format = CUPLAS_LOG_AUTO;
    cfg->log.file = NULL;
}

int cuplas_config_load(cuplas_config *cfg, const char *path,
                       const char *const *overrides, int noverrides,
                       cuplas_error *err)
{
    struct loader ld = { .path = path, .err = err };
    bool have_doc = false;
    int rc = 0;

    cuplas_config_defaults(cfg);
    if (path) {
        free(cfg->path);
        free(cfg->base_dir);
        cfg->path = strdup(path);
        cfg->base_dir = cuplas_path_dir(path);
    }
    if (!cfg->path || !cfg->base_dir || !cfg->output.dir || !cfg->output.name)
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
    if (path)
        CUPLAS_TRY(read_document(&ld));
    else if (!yaml_document_initialize(&ld.doc, NULL, NULL, NULL, 1, 1))
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
    have_doc = true;
    ld.nfile = (int)(ld.doc.nodes.top - ld.doc.nodes.start);

    const yaml_node_t *root = yaml_document_get_root_node(&ld.doc);
    if (root && is_null(root)) {
        /* a file holding only "---" or "~": as empty as no document at all */
        yaml_document_delete(&ld.doc);
        have_doc = yaml_document_initialize(&ld.doc, NULL, NULL, NULL, 1, 1);
        if (!have_doc)
            CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
        root = NULL;
        ld.nfile = 0;
    }
    if (root && root->type != YAML_MAPPING_NODE) {
        char names[512];
        CUPLAS_TRY(fail_at(&ld, root, "the top level must be a mapping (accepted: "
                           "the sections %s)", children(config_keys, NCONFIG_KEYS, "",
                                                        names, sizeof names)));
    }
    CUPLAS_TRY(apply_overrides(&ld, overrides, noverrides));
    root = yaml_document_get_root_node(&ld.doc);
    if (root && root->type == YAML_MAPPING_NODE)
        CUPLAS_TRY(walk_mapping(&ld, root, "", "", config_keys, NCONFIG_KEYS, cfg, ld.seen));
    CUPLAS_TRY(check_config(&ld, cfg));
    rc = 0;
fail:
    free(ld.ovr);
    if (have_doc)
        yaml_document_delete(&ld.doc);
    if (rc)
        cuplas_config_free(cfg);
    return rc;
}

void cuplas_config_free(cuplas_config *cfg)
{
    if (!cfg)
        return;
    for (int i = 0; i < cfg->ninputs; i++)
        free_input(&cfg->inputs[i]);
    free(cfg->inputs);
    free(cfg->path);
    free(cfg->base_dir);
    free(cfg->output.dir);
    free(cfg->output.name);
    free(cfg->channels.use);
    free(cfg->channels.weights);
    free(cfg->backend.gpus);
    free(cfg->log.file);
    memset(cfg, 0, sizeof *cfg);
}

char *cuplas_config_to_yaml(const cuplas_config *cfg)
{
    return emit_yaml(cfg, NULL);
}

char *cuplas_sort_params_to_yaml(const cuplas_sort_params *p)
{
    static const char *const sections[] = { "sort", NULL };
    cuplas_config cfg = { .sort = *p };
    return emit_yaml(&cfg, sections);
}

char *cuplas_config_params_to_yaml(const cuplas_config *cfg)
{
    static const char *const sections[] = { "sort", "channels", NULL };
    return emit_yaml(cfg, sections);
}

static const char *kind_name(enum kind kind)
{
    switch (kind) {
    case K_BOOL: return "bool";
    case K_INT:
    case K_I64: return "integer";
    case K_U64: return "uint64";
    case K_NUM: return "number";
    case K_ENUM: return "name";
    case K_STR: return "string";
    case K_TEMPLATE: return "template";
    case K_STRLIST: return "string list";
    case K_INTLIST: return "integer list";
    case K_CHANNELS: return "channels";
    case K_NUMLIST: return "number list";
    case K_INPUTS: return "list";
    }
    return "?";
}

/* One Markdown cell; a '|' would end the cell early. */
static void put_cell(struct sbuf *b, const char *s, bool code)
{
    put(b, " %s", code ? "`" : "");
    for (; *s; s++)
        put(b, "%s%c", *s == '|' ? "\\" : "", *s);
    put(b, "%s |", code ? "`" : "");
}

static void put_key_row(struct sbuf *b, const char *prefix, const struct key *k,
                        const void *defaults)
{
    char name[64], acc[256];
    struct sbuf def = { 0 };
    snprintf(name, sizeof name, "%s%s", prefix, k->name);
    if (k->flags & F_REQUIRED)
        put(&def, "(required)");
    else
        put_value(&def, k, defaults);
    put(b, "|");
    put_cell(b, name, true);
    put_cell(b, kind_name(k->kind), false);
    put_cell(b, def.s ? def.s : "?", !(k->flags & F_REQUIRED));
    put_cell(b, accepted(k, acc, sizeof acc), false);
    put_cell(b, k->doc, false);
    put(b, "\n");
    free(def.s);
}

void cuplas_config_print_keys(FILE *out)
{
    cuplas_config cfg;
    cuplas_input_spec in = { 0 };
    struct sbuf b = { 0 };

    cuplas_config_defaults(&cfg);
    put(&b, "| key | type | default | accepted | description |\n");
    put(&b, "|---|---|---|---|---|\n");
    for (size_t i = 0; i < NCONFIG_KEYS; i++) {
        put_key_row(&b, "", &config_keys[i], &cfg);
        for (size_t r = 0; config_keys[i].kind == K_INPUTS && r < NINPUT_KEYS; r++)
            put_key_row(&b, "inputs[].", &input_keys[r], &in);
    }
    if (b.s)
        fputs(b.s, out);
    free(b.s);
    cuplas_config_free(&cfg);
}

const char *cuplas_norm_name(cuplas_norm n)
{
    return enum_name(norm_names, (int)n);
}

const char *cuplas_device_kind_name(cuplas_device_kind d)
{
    return enum_name(device_names, (int)d);
}

const char *cuplas_overwrite_name(cuplas_overwrite o)
{
    return enum_name(overwrite_names, (int)o);
}

