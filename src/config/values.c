/*
 * values.c - one YAML node into one typed field of the config, as its
 * schema row says: scalars (integers, numbers, booleans, enum names,
 * strings, the output name template) and lists (strings, integers, channel
 * ranges, numbers, the `inputs:` entries); and the schema walk that takes
 * a mapping's keys to their rows (an `inputs:` entry is walked again, so
 * the walk and the values live together).
 *
 * Design facts: a value is checked completely before it is stored, and a
 * stored value replaces the default (or an earlier override) only then, so
 * a failed load never leaves a half-built list behind. Integers must be
 * written as integers and numbers in plain decimal notation: "1.5" is not
 * a block size and "inf" is not a radius.
 */
#include "config/loader.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

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
        return cuplas_cfg_fail_value(ld, k, name, node, "is not an integer");
    if (overflow || *out < lo || *out > hi || !in_range(k, (double)*out))
        return cuplas_cfg_fail_value(ld, k, name, node, "is out of range");
    if (k->flags & F_EVEN && *out % 2 != 0)
        return cuplas_cfg_fail_value(ld, k, name, node, "is odd");
    if (k->choices) {
        int i = 0;
        while (k->choices[i] != CHOICES_END && k->choices[i] != *out)
            i++;
        if (k->choices[i] == CHOICES_END)
            return cuplas_cfg_fail_value(ld, k, name, node, "is not one of the choices");
    }
    return 0;
}

static int read_number(const struct loader *ld, const struct key *k,
                       const char *name, const yaml_node_t *node, double *out)
{
    if (!is_plain(node) || !parse_number(scalar_text(node), out))
        return cuplas_cfg_fail_value(ld, k, name, node, "is not a number");
    if (!in_range(k, *out))
        return cuplas_cfg_fail_value(ld, k, name, node, "is out of range");
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
    return cuplas_cfg_fail_value(ld, k, name, node, "is not a known name");
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
                 || (len == 6 && strncmp(p, "{file}", len) == 0)
                 || (len == 8 && strncmp(p, "{parent}", len) == 0)
                 || (len == 9 && strncmp(p, "{relpath}", len) == 0))
            stem = true;
        else {
            snprintf(buf, size, "has the unknown placeholder %.*s",
                     len > 40 ? 40 : (int)len, p);
            return buf;
        }
    }
    /* the result must land inside output.dir: no absolute name, no ".."
     * component (placeholders never expand to either: {dataset} and
     * {relpath} have their '/' replaced, {stem}, {file} and {parent} are
     * one path component, ".." never among them) */
    if (s[0] == '/')
        return "is an absolute path (accepted: a name inside output.dir)";
    for (const char *p = s; (p = strstr(p, "..")); p += 2)
        if ((p == s || p[-1] == '/') && (p[2] == '/' || p[2] == '\0'))
            return "has a '..' component, which would leave output.dir";
    if (!dataset)
        return "lacks {dataset}";
    if (!stem)
        return "lacks {stem} or {file} (or {parent}, {relpath})";
    return NULL;
}

static int set_string(const struct loader *ld, const struct key *k,
                      const char *name, const yaml_node_t *node, char **field)
{
    if (node->type != YAML_SCALAR_NODE)
        return cuplas_cfg_fail_value(ld, k, name, node, "is the wrong type");
    const char *s = is_null(node) ? "" : scalar_text(node);
    if (!*s && k->flags & F_NONEMPTY)
        return cuplas_cfg_fail_value(ld, k, name, node, "is empty");
    char why[96];
    const char *problem = k->kind == K_TEMPLATE ? template_problem(s, why, sizeof why) : NULL;
    if (problem)
        return cuplas_cfg_fail_value(ld, k, name, node, problem);
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
            return cuplas_cfg_fail_value(ld, k, name, node, "is not a boolean");
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
            return cuplas_cfg_fail_value(ld, k, name, node, "is not an unsigned integer");
        if (overflow)
            return cuplas_cfg_fail_value(ld, k, name, node, "is out of range");
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

static int set_strlist(struct loader *ld, const struct key *k, const char *name,
                       const yaml_node_t *node, void *base)
{
    char ***field = (char ***)((char *)base + k->off);
    int *count = (int *)((char *)base + k->n_off);
    char **v = NULL;
    size_t n = 0;
    int rc = 0;

    if (node->type == YAML_MAPPING_NODE || is_null(node))
        CUPLAS_TRY(cuplas_cfg_fail_value(ld, k, name, node, "is the wrong type"));
    size_t want = item_count(node);
    if (want == 0 && k->flags & F_NONEMPTY)
        CUPLAS_TRY(cuplas_cfg_fail_value(ld, k, name, node, "is empty"));
    if (want > INT_MAX)
        CUPLAS_TRY(cuplas_cfg_fail_value(ld, k, name, node, "is too long"));
    if (want && !(v = calloc(want, sizeof *v)))
        CUPLAS_FAIL(ld->err, CUPLAS_ERR_NOMEM, "out of memory");
    for (; n < want; n++) {
        const yaml_node_t *item = item_at(ld, node, n);
        if (item->type != YAML_SCALAR_NODE || is_null(item) || !*scalar_text(item))
            CUPLAS_TRY(cuplas_cfg_fail_value(ld, k, name, item, "is not a non-empty string"));
        if (!(v[n] = strdup(scalar_text(item))))
            CUPLAS_FAIL(ld->err, CUPLAS_ERR_NOMEM, "out of memory");
    }
    cuplas_cfg_free_strv(*field, *count);
    *field = v;
    *count = (int)n;
    return 0;
fail:
    cuplas_cfg_free_strv(v, (int)n);
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

/* A channel list item that is neither an integer nor an index range: a
 * name, glob or family range (core/channel_names.h). */
static bool is_name_item(const yaml_node_t *item)
{
    long long lo, hi;
    if (item->type != YAML_SCALAR_NODE || is_null(item))
        return false;
    const char *t = scalar_text(item);
    if (parse_range(t, &lo, &hi))
        return false;
    if (*t == '-' || *t == '+')
        t++;
    return !(*t && all_digits(t));
}

/* Strings of a selector list (a lone string is a 1-list), each with its
 * config location so that a name an input lacks is reported where it was
 * written. */
static int set_selectors(struct loader *ld, const struct key *k, const char *name,
                         const yaml_node_t *node, cuplas_selectors *out)
{
    cuplas_selectors s = {0};
    int rc = 0;

    if (node->type == YAML_MAPPING_NODE || is_null(node))
        CUPLAS_TRY(cuplas_cfg_fail_value(ld, k, name, node, "is the wrong type"));
    size_t want = item_count(node);
    if (want > 65536)
        CUPLAS_TRY(cuplas_cfg_fail_value(ld, k, name, node, "is too long"));
    if (want && (!(s.v = calloc(want, sizeof *s.v)) || !(s.where = calloc(want, sizeof *s.where))))
        CUPLAS_FAIL(ld->err, CUPLAS_ERR_NOMEM, "out of memory");
    for (; (size_t)s.n < want; s.n++) {
        const yaml_node_t *item = item_at(ld, node, (size_t)s.n);
        char where[sizeof ld->err->where];
        if (item->type != YAML_SCALAR_NODE || is_null(item) || !*scalar_text(item))
            CUPLAS_TRY(cuplas_cfg_fail_value(ld, k, name, item, "is not a non-empty string"));
        cuplas_cfg_node_where(ld, item, where, sizeof where);
        if (!(s.v[s.n] = strdup(scalar_text(item))) || !(s.where[s.n] = strdup(where))) {
            s.n++;
            CUPLAS_FAIL(ld->err, CUPLAS_ERR_NOMEM, "out of memory");
        }
    }
    cuplas_selectors_free(out);
    *out = s;
    return 0;
fail:
    cuplas_selectors_free(&s);
    return rc;
}

/* "HxW": two decimal integers in [1, INT32_MAX] (the [H, W] form's bounds)
 * and nothing else. Digits are checked by hand because strtoll would also
 * take signs, spaces and a trailing tail. */
static int parse_hw(const char *t, long long hw[2])
{
    for (int i = 0; i < 2; i++) {
        long long v = 0;
        const char *start = t;
        for (; *t >= '0' && *t <= '9'; t++) {
            v = v * 10 + (*t - '0');
            if (v > INT32_MAX)
                return -1;
        }
        if (t == start || v < 1 || *t != (i == 0 ? 'x' : '\0'))
            return -1;
        hw[i] = v;
        t++;
    }
    return 0;
}

/* grid.shape: "default", "auto", "HxW" or [H, W]. */
static int set_shape(struct loader *ld, const struct key *k, const char *name,
                     const yaml_node_t *node, int64_t *shape)
{
    long long hw[2] = {0, 0};
    if (node->type == YAML_SCALAR_NODE && !is_null(node)) {
        const char *t = scalar_text(node);
        if (!strcmp(t, "default") || !strcmp(t, "auto") || !strcmp(t, "square")) {
            shape[0] = shape[1] = t[0] == 'a' ? -1 : t[0] == 's' ? -2 : 0;
            return 0;
        }
        if (parse_hw(t, hw) != 0)
            return cuplas_cfg_fail_value(ld, k, name, node, "is not a grid shape");
    } else if (node->type == YAML_SEQUENCE_NODE && item_count(node) == 2) {
        for (int i = 0; i < 2; i++) {
            const yaml_node_t *item = item_at(ld, node, (size_t)i);
            long long v;
            if (read_int(ld, k, name, item, 1, INT32_MAX, &v) != 0)
                return (int)ld->err->code;
            hw[i] = v;
        }
    } else {
        return cuplas_cfg_fail_value(ld, k, name, node, "is not a grid shape");
    }
    shape[0] = hw[0];
    shape[1] = hw[1];
    return 0;
}

/* One item of an int list as [lo, hi]: an integer, or a channel range. */
static int read_int_item(struct loader *ld, const struct key *k, const char *name,
                         const yaml_node_t *item, long long *lo, long long *hi)
{
    if (k->kind == K_CHANNELS && item->type == YAML_SCALAR_NODE
        && parse_range(scalar_text(item), lo, hi)) {
        if (*lo > *hi)
            return cuplas_cfg_fail_value(ld, k, name, item, "is a descending range");
        if (!in_range(k, (double)*lo) || !in_range(k, (double)*hi))
            return cuplas_cfg_fail_value(ld, k, name, item, "is out of range");
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
    if (k->kind == K_CHANNELS && k->aux_off) {
        /* a list that names a channel is kept as selectors, resolved per
           input; an index list stays a list of indices */
        cuplas_selectors *sel = (cuplas_selectors *)((char *)base + k->aux_off);
        bool named = false;
        for (size_t i = 0; !all && !is_null(node) && node->type != YAML_MAPPING_NODE &&
                           i < item_count(node); i++)
            named |= is_name_item(item_at(ld, node, i));
        cuplas_selectors_free(sel);
        if (named) {
            free(*field);
            *field = NULL;
            *count = 0;
            return set_selectors(ld, k, name, node, sel);
        }
    }
    bool shorthand = k->kind == K_CHANNELS && node->type == YAML_SCALAR_NODE && !is_null(node);
    if (!all && node->type != YAML_SEQUENCE_NODE && !shorthand)
        CUPLAS_TRY(cuplas_cfg_fail_value(ld, k, name, node, "is the wrong type"));
    if (k->kind == K_CHANNELS && !all && item_count(node) == 0)
        CUPLAS_TRY(cuplas_cfg_fail_value(ld, k, name, node, "is empty"));
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
                CUPLAS_TRY(cuplas_cfg_fail_at(ld, item, "%s: %s is listed twice (accepted: "
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
        CUPLAS_TRY(cuplas_cfg_fail_value(ld, k, name, node, "is the wrong type"));
    size_t want = item_count(node);
    if (want > INT_MAX)
        CUPLAS_TRY(cuplas_cfg_fail_value(ld, k, name, node, "is too long"));
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

static int set_inputs(struct loader *ld, const struct key *k, const char *name,
                      const yaml_node_t *node, cuplas_config *cfg)
{
    int rc = 0;

    if (node->type != YAML_SEQUENCE_NODE)
        return cuplas_cfg_fail_value(ld, k, name, node, "is the wrong type");
    size_t n = item_count(node);
    if (n > INT_MAX)
        return cuplas_cfg_fail_value(ld, k, name, node, "is too long");
    for (int i = 0; i < cfg->ninputs; i++)
        cuplas_cfg_free_input(&cfg->inputs[i]);
    free(cfg->inputs);
    cfg->inputs = NULL;
    cfg->ninputs = 0;
    if (n && !(cfg->inputs = calloc(n, sizeof *cfg->inputs)))
        CUPLAS_FAIL(ld->err, CUPLAS_ERR_NOMEM, "out of memory");
    cfg->ninputs = (int)n;   /* set first: a partial list is still freed */

    for (size_t i = 0; i < n; i++) {
        const yaml_node_t *entry = item_at(ld, node, i);
        const struct key *keys = cuplas_cfg_input_keys;
        const yaml_node_t *seen[CUPLAS_CFG_NINPUT_KEYS] = { NULL };
        char shown[224], val[80], acc[256];
        snprintf(shown, sizeof shown, "%s[%zu].", name, i);
        if (entry->type != YAML_MAPPING_NODE)
            CUPLAS_TRY(cuplas_cfg_fail_at(ld, entry, "%s[%zu]: %s is the wrong type "
                                          "(accepted: %s)", name, i,
                                          cuplas_cfg_describe(entry, val, sizeof val),
                                          cuplas_cfg_accepted(k, acc, sizeof acc)));
        cfg->inputs[i].line =
            cuplas_cfg_from_file(ld, entry) ? (int)entry->start_mark.line + 1 : 0;
        CUPLAS_TRY(cuplas_cfg_walk_mapping(ld, entry, "", shown, keys, CUPLAS_CFG_NINPUT_KEYS,
                                           &cfg->inputs[i], seen));
        for (size_t r = 0; r < CUPLAS_CFG_NINPUT_KEYS; r++)
            if (keys[r].flags & F_REQUIRED && !seen[r])
                CUPLAS_TRY(cuplas_cfg_fail_at(ld, entry, "%s%s: missing (accepted: %s)", shown,
                                              keys[r].name,
                                              cuplas_cfg_accepted(&keys[r], acc, sizeof acc)));
    }
    return 0;
fail:
    return rc;   /* the entries read so far stay in cfg, which the caller frees */
}

/* ------------------------------------------------------------------------
 * By kind
 * ------------------------------------------------------------------------ */

int cuplas_cfg_set_value(struct loader *ld, const struct key *k, const char *name,
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
    case K_SELECTORS:
        return set_selectors(ld, k, name, node, (cuplas_selectors *)((char *)base + k->off));
    case K_SHAPE:
        return set_shape(ld, k, name, node, (int64_t *)(void *)((char *)base + k->off));
    default:
        return set_scalar(ld, k, name, node, (char *)base + k->off);
    }
}

/* ------------------------------------------------------------------------
 * The schema walk
 * ------------------------------------------------------------------------ */

static int fail_unknown(const struct loader *ld, const yaml_node_t *node,
                        const struct key *keys, size_t nkeys, const char *prefix,
                        const char *shown, const char *key)
{
    char names[512], label[64];
    if (*prefix)
        snprintf(label, sizeof label, "in %.*s", (int)strlen(prefix) - 1, prefix);
    else
        snprintf(label, sizeof label, "%s", *shown ? "in an input" : "at the top level");
    return cuplas_cfg_fail_at(ld, node, "%s%s%s: unknown key (accepted %s: %s)", shown, prefix,
                              key, label,
                              cuplas_cfg_children(keys, nkeys, prefix, names, sizeof names));
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
                return cuplas_cfg_fail_at(ld, ki, "%s%s%s: duplicate key (accepted: each "
                                          "key once per mapping)", shown, prefix,
                                          scalar_text(ki));
        }
    }
    return 0;
}

int cuplas_cfg_walk_mapping(struct loader *ld, const yaml_node_t *map, const char *prefix,
                            const char *shown, const struct key *keys, size_t nkeys,
                            void *base, const yaml_node_t **seen)
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
            return cuplas_cfg_fail_at(ld, key, "%s%s: a key must be a short name", shown,
                                      prefix);
        snprintf(path, sizeof path, "%s%s", prefix, scalar_text(key));
        snprintf(name, sizeof name, "%s%s", shown, path);

        const struct key *k = cuplas_cfg_find_key(keys, nkeys, path);
        if (k) {
            rc = cuplas_cfg_set_value(ld, k, name, value, base);
            if (rc)
                return rc;
            seen[k - keys] = value;
        } else if (cuplas_cfg_is_section(keys, nkeys, path)) {
            strcat(path, ".");
            if (value->type != YAML_MAPPING_NODE)
                return cuplas_cfg_fail_at(ld, value, "%s: %s is the wrong type (accepted: a "
                                          "mapping with keys %s)", name,
                                          cuplas_cfg_describe(value, val, sizeof val),
                                          cuplas_cfg_children(keys, nkeys, path, names,
                                                              sizeof names));
            rc = cuplas_cfg_walk_mapping(ld, value, path, shown, keys, nkeys, base, seen);
            if (rc)
                return rc;
        } else if (keys == cuplas_cfg_keys && cuplas_cfg_find_removed(path)) {
            return cuplas_cfg_fail_removed(ld, key, NULL, cuplas_cfg_find_removed(path));
        } else {
            return fail_unknown(ld, key, keys, nkeys, prefix, shown, scalar_text(key));
        }
    }
    return 0;
}
