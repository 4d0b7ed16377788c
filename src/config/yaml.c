/*
 * yaml.c - cuplas_config_load: read the file into a libyaml node tree,
 * graft the --set overrides onto it, then walk the tree along the schema
 * (values.c) and check the rules that span keys; errors point at their
 * node through blame.c.
 *
 * Design facts: override nodes are appended after the file's nodes, so a
 * node's id alone says whether an error points at file:line:col or at
 * "--set ..." (cuplas_cfg_fail_at). Overrides are grafted onto the tree
 * before anything is read, so a --set value is validated exactly like the
 * file's, and the later of two settings wins. A key of the removed-keys
 * table is refused in either place with its advice.
 */
#include "config/loader.h"
#include "eval/codec.h"
#include "eval/orders.h"
#include "util/fsutil.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

/* The node that set config key `name`, NULL if it kept its default. */
static const yaml_node_t *seen_node(const struct loader *ld, const char *name)
{
    const struct key *k = cuplas_cfg_find_key(cuplas_cfg_keys, CUPLAS_CFG_NKEYS, name);
    return ld->seen[k - cuplas_cfg_keys];
}

/* Bytes of a scalar field of kind k (the kinds sort.* keys use). */
static size_t scalar_size(enum kind k)
{
    switch (k) {
    case K_BOOL: return sizeof(bool);
    case K_INT:
    case K_ENUM: return sizeof(int);
    case K_I64: return sizeof(int64_t);
    case K_U64: return sizeof(uint64_t);
    case K_NUM: return sizeof(double);
    default: return 0;
    }
}

/* sort.preset: the preset's value for every sort.* key that neither the
 * file nor a --set named, and whether its wide values may apply. Done
 * after the walk, so that the order of keys in the file does not matter
 * and an explicit key always wins. */
static void apply_preset(const struct loader *ld, cuplas_config *cfg)
{
    cuplas_sort_params pre;
    const size_t at = offsetof(cuplas_config, sort);
    cuplas_sort_params_of_preset(cfg->sort.preset, &pre);
    for (size_t i = 0; i < CUPLAS_CFG_NKEYS; i++) {
        const struct key *k = &cuplas_cfg_keys[i];
        if (strncmp(k->name, "sort.", 5) != 0 || ld->seen[i])
            continue;
        /* every sort.* key lives in cfg->sort, so its offset there is
         * k->off - at in a cuplas_sort_params */
        memcpy((char *)cfg + k->off, (const char *)&pre + (k->off - at), scalar_size(k->kind));
    }
    /* the wide values come as a set: naming one of them keeps all four */
    cfg->sort.wide_auto = !seen_node(ld, "sort.group_size") &&
                          !seen_node(ld, "sort.improvement_break") &&
                          !seen_node(ld, "sort.max_passes") &&
                          !seen_node(ld, "sort.max_configs");
    /* and so do the small ones: the decay only where the row sets one */
    cfg->sort.small_auto = !seen_node(ld, "sort.local_group_size") &&
                           !seen_node(ld, "sort.local_passes") &&
                           !seen_node(ld, "sort.max_configs") &&
                           !(seen_node(ld, "sort.radius_decay") &&
                             cuplas_preset_small_row_decays(cfg->sort.preset));
}

/* Item i of a list key's node (a scalar stands for a list of one). */
static const yaml_node_t *list_item(struct loader *ld, const yaml_node_t *node, int i)
{
    if (node->type != YAML_SEQUENCE_NODE)
        return node;
    return yaml_document_get_node(&ld->doc, node->data.sequence.items.start[i]);
}

/* A list key of names among names[0..n-1], each once; the first unknown
 * or repeated item is blamed on its own line. eval.codecs and eval.orders
 * share it (as --codecs and --orders share cuplas_eval_parse_*). */
static int check_name_list(struct loader *ld, const char *key, char *const *v, int nv,
                           const char *const *names, int n, const char *what,
                           const char *accepted)
{
    const yaml_node_t *node = seen_node(ld, key);
    unsigned seen = 0;
    for (int i = 0; i < nv; i++) {
        const yaml_node_t *item = node ? list_item(ld, node, i) : NULL;
        int k = 0;
        while (k < n && strcmp(v[i], names[k]) != 0)
            k++;
        if (k == n)
            return cuplas_cfg_fail_at(ld, item, "%s: unknown %s '%s' (accepted: %s, each once)",
                                      key, what, v[i], accepted);
        if (seen & 1u << k)
            return cuplas_cfg_fail_at(ld, item, "%s: %s is listed twice (accepted: each %s "
                                      "once)", key, v[i], what);
        seen |= 1u << k;
    }
    return 0;
}

/* eval.codecs and eval.orders (sorted need not be listed: it is always
 * measured). */
static int check_eval_lists(struct loader *ld, const cuplas_config *cfg)
{
    const char *codecs[CUPLAS_CODEC_COUNT], *orders[CUPLAS_ORDER_COUNT];
    for (int c = 0; c < CUPLAS_CODEC_COUNT; c++)
        codecs[c] = cuplas_codec_name((cuplas_codec)c);
    for (int k = 0; k < CUPLAS_ORDER_COUNT; k++)
        orders[k] = cuplas_order_name((cuplas_order_kind)k);
    int rc = check_name_list(ld, "eval.codecs", cfg->eval.codecs, cfg->eval.ncodecs, codecs,
                             CUPLAS_CODEC_COUNT, "codec", "png, webp, jxl");
    return rc ? rc : check_name_list(ld, "eval.orders", cfg->eval.orders, cfg->eval.norders, orders,
                           CUPLAS_ORDER_COUNT, "order", CUPLAS_ORDERS_TEXT);
}

/* Rules that involve more than one key, once every key is read. */
static int check_config(struct loader *ld, const cuplas_config *cfg)
{
    const struct key *in = cuplas_cfg_find_key(cuplas_cfg_keys, CUPLAS_CFG_NKEYS, "inputs");
    const yaml_node_t *in_node = seen_node(ld, "inputs");
    const yaml_node_t *lo = seen_node(ld, "sort.min_configs");
    const yaml_node_t *hi = seen_node(ld, "sort.max_configs");
    const yaml_node_t *w = seen_node(ld, "channels.weights");
    char acc[256];

    if (ld->path && !in_node) {
        cuplas_error_where(ld->err, "%s", ld->path);
        return cuplas_error_set(ld->err, CUPLAS_ERR_USAGE, "inputs: missing, a config "
                                "file needs at least one (accepted: %s)",
                                cuplas_cfg_accepted(in, acc, sizeof acc));
    }
    if (ld->path && cfg->ninputs == 0)
        return cuplas_cfg_fail_value(ld, in, "inputs", in_node, "is empty");
    if (cfg->sort.max_configs < cfg->sort.min_configs)
        return cuplas_cfg_fail_at(ld, hi ? hi : lo, "sort.max_configs: %d is less than "
                                  "sort.min_configs (%d) (accepted: sort.max_configs >= "
                                  "sort.min_configs)", cfg->sort.max_configs,
                                  cfg->sort.min_configs);
    if (cfg->channels.use && cfg->channels.nweights
        && cfg->channels.nweights != cfg->channels.nuse)
        return cuplas_cfg_fail_at(ld, w, "channels.weights: %d weights for %d channels in "
                                  "channels.use (accepted: one weight per used channel, or [])",
                                  cfg->channels.nweights, cfg->channels.nuse);
    return check_eval_lists(ld, cfg);
}

/* ------------------------------------------------------------------------
 * Reading the file and grafting the overrides
 * ------------------------------------------------------------------------ */

/* Line and column (1-based, columns in characters, as libyaml counts
 * them) of byte `offset` of the file at path: a reader error (bad UTF-8, a
 * control character) has only the offset. 0 when the file cannot be read
 * again (a FIFO) or is shorter. */
static int offset_mark(const char *path, size_t offset, size_t *line, size_t *col)
{
    FILE *f = fopen(path, "rb");
    struct stat st;
    size_t at = 0;
    int c, rc = 0;

    if (!f)
        return 0;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode))
        goto done;
    *line = *col = 1;
    for (; at < offset && (c = getc(f)) != EOF; at++) {
        if (c == '\n')
            *line += 1, *col = 1;
        else if ((c & 0xC0) != 0x80)   /* not a UTF-8 continuation byte */
            *col += 1;
    }
    rc = at == offset;
done:
    fclose(f);
    return rc;
}

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
    size_t line, col;
    if (parser->error == YAML_READER_ERROR) {
        if (offset_mark(ld->path, parser->problem_offset, &line, &col))
            cuplas_error_where(ld->err, "%s:%zu:%zu", ld->path, line, col);
        else
            cuplas_error_where(ld->err, "%s", ld->path);
    } else
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
    /* fopen succeeds on a directory; libyaml would then report a read
     * error "at byte 0" */
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode)) {
        cuplas_error_where(ld->err, "%s", ld->path);
        CUPLAS_FAIL(ld->err, CUPLAS_ERR_USAGE, "not a config file: it is a %s",
                    S_ISDIR(st.st_mode) ? "directory" : "special file");
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
    if (!cuplas_cfg_is_section(cuplas_cfg_keys, CUPLAS_CFG_NKEYS, section))
        section[0] = '\0';
    snprintf(prefix, sizeof prefix, "%s%s", section, section[0] ? "." : "");
    cuplas_error_where(ld->err, "--set %s", text);
    return cuplas_error_set(ld->err, CUPLAS_ERR_USAGE, "%s: unknown key (accepted %s%s: %s)",
                            key, section[0] ? "in " : "at the top level", section,
                            cuplas_cfg_children(cuplas_cfg_keys, CUPLAS_CFG_NKEYS, prefix, names,
                                                sizeof names));
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
    if (cuplas_cfg_find_removed(key))
        CUPLAS_TRY(cuplas_cfg_fail_removed(ld, NULL, text, cuplas_cfg_find_removed(key)));
    if (!cuplas_cfg_find_key(cuplas_cfg_keys, CUPLAS_CFG_NKEYS, key))
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
 * Loading
 * ------------------------------------------------------------------------ */

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
    if (!cfg->path || !cfg->base_dir || !cfg->output.dir || !cfg->output.name ||
        !cfg->grid.crop_by || !cfg->eval.codecs || !cfg->eval.codecs[0] ||
        !cfg->eval.codecs[1] || !cfg->eval.orders)
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
    for (int k = 0; k < cfg->eval.norders; k++)
        if (!cfg->eval.orders[k])
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
        CUPLAS_TRY(cuplas_cfg_fail_at(&ld, root, "the top level must be a mapping (accepted: "
                                      "the sections %s)",
                                      cuplas_cfg_children(cuplas_cfg_keys, CUPLAS_CFG_NKEYS, "",
                                                          names, sizeof names)));
    }
    CUPLAS_TRY(apply_overrides(&ld, overrides, noverrides));
    root = yaml_document_get_root_node(&ld.doc);
    if (root && root->type == YAML_MAPPING_NODE)
        CUPLAS_TRY(cuplas_cfg_walk_mapping(&ld, root, "", "", cuplas_cfg_keys, CUPLAS_CFG_NKEYS,
                                           cfg, ld.seen));
    apply_preset(&ld, cfg);
    /* a name only an input can refuse: where it was written, for that error */
    const yaml_node_t *crop_by = seen_node(&ld, "grid.crop_by");
    if (crop_by)
        cuplas_cfg_node_where(&ld, crop_by, cfg->grid.crop_by_where,
                              sizeof cfg->grid.crop_by_where);
    /* the output folder is made (and fails) job by job, long after loading */
    const yaml_node_t *dir = seen_node(&ld, "output.dir");
    if (dir && !(cfg->output.dir_where = cuplas_cfg_node_where_dup(&ld, dir)))
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
    if (dir && cuplas_cfg_from_file(&ld, dir))
        cfg->output.dir_line = (int)dir->start_mark.line + 1;
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
