/*
 * emit.c - the config written back out: the effective config and the
 * params attribute as YAML, and the key reference as Markdown rows.
 *
 * Design facts: both walk the schema table, so a new key shows up in the
 * dump, `cuplas check` and docs/config-keys.md without code here. The YAML
 * is written so that it loads back to the same config (test_config checks
 * the round trip): strings always double-quoted, numbers in the shortest
 * form that reads back to the same bits.
 */
#include "config/schema.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    case K_ENUM: put(b, "%s", cuplas_cfg_enum_name(k->names, *(const int *)field)); break;
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
    case K_SELECTORS:
    case K_CHANNELS:
    case K_INTLIST:
        if (k->kind == K_SELECTORS || (k->kind == K_CHANNELS && k->aux_off &&
                                       ((const cuplas_selectors *)((const char *)base +
                                                                   k->aux_off))->n)) {
            const cuplas_selectors *s = (const cuplas_selectors *)(const void *)(
                (const char *)base + (k->kind == K_SELECTORS ? k->off : k->aux_off));
            put(b, "[");
            for (int i = 0; i < s->n; i++) {
                put(b, "%s", i ? ", " : "");
                put_quoted(b, s->v[i]);
            }
            put(b, "]");
            break;
        }
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
    case K_SHAPE: {
        const int64_t *hw = (const int64_t *)(const void *)field;
        if (hw[0] == 0)
            put(b, "default");
        else if (hw[0] == -2)
            put(b, "square");
        else if (hw[0] < 0)
            put(b, "auto");
        else
            put(b, "[%" PRId64 ", %" PRId64 "]", hw[0], hw[1]);
        break;
    }
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
        for (size_t r = 0; r < CUPLAS_CFG_NINPUT_KEYS; r++) {
            put(b, "%s%s: ", r ? "    " : "  - ", cuplas_cfg_input_keys[r].name);
            put_value(b, &cuplas_cfg_input_keys[r], &cfg->inputs[i]);
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

/* The sections of cfg named in `sections` (NULL: all), in schema order.
 * `params`: the params attribute, which leaves out F_PARAMS_NONZERO keys
 * at 0 (the full dump always has every key). */
static char *emit_yaml(const cuplas_config *cfg, const char *const *sections, bool params)
{
    struct sbuf b = { 0 };
    cuplas_config def = { 0 };    /* F_PARAMS_NONDEFAULT's reference: the
                                     preset's values (the params name a
                                     preset other than default, so they
                                     read back to the same values) */
    const char *section = NULL;   /* the section whose header was written */
    cuplas_sort_params_of_preset(cfg->sort.preset, &def.sort);
    size_t seclen = 0;
    for (size_t i = 0; i < CUPLAS_CFG_NKEYS; i++) {
        const struct key *k = &cuplas_cfg_keys[i];
        size_t len = strcspn(k->name, ".");
        if (!wanted(sections, k->name, len))
            continue;
        if (k->kind == K_INPUTS) {
            put_inputs(&b, cfg);
            continue;
        }
        if (sections && k->flags & F_PARAMS_IF_SET && k->kind == K_SELECTORS &&
            ((const cuplas_selectors *)(const void *)((const char *)cfg + k->off))->n == 0)
            continue;
        if (params && (k->flags & F_PARAMS_NONZERO)
            && *(const int *)((const char *)cfg + k->off) == 0)
            continue;
        if (params && (k->flags & F_PARAMS_NONDEFAULT)
            && *(const int *)((const char *)cfg + k->off) ==
               *(const int *)((const char *)&def + k->off))
            continue;
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

char *cuplas_config_to_yaml(const cuplas_config *cfg)
{
    return emit_yaml(cfg, NULL, false);
}

char *cuplas_sort_params_to_yaml(const cuplas_sort_params *p)
{
    static const char *const sections[] = { "sort", NULL };
    cuplas_config cfg = { .sort = *p };
    return emit_yaml(&cfg, sections, true);
}

char *cuplas_config_params_to_yaml(const cuplas_config *cfg)
{
    static const char *const sections[] = { "sort", "channels", NULL };
    return emit_yaml(cfg, sections, true);
}

/* ------------------------------------------------------------------------
 * The key reference
 * ------------------------------------------------------------------------ */

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
    case K_SELECTORS: return "channel list";
    case K_SHAPE: return "shape";
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
    put_cell(b, cuplas_cfg_accepted(k, acc, sizeof acc), false);
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
    for (size_t i = 0; i < CUPLAS_CFG_NKEYS; i++) {
        const struct key *k = &cuplas_cfg_keys[i];
        put_key_row(&b, "", k, &cfg);
        for (size_t r = 0; k->kind == K_INPUTS && r < CUPLAS_CFG_NINPUT_KEYS; r++)
            put_key_row(&b, "inputs[].", &cuplas_cfg_input_keys[r], &in);
    }
    /* an old config that names one of these is refused with this advice */
    put(&b, "\n## Removed keys\n\n");
    put(&b, "| key | removed in | instead |\n");
    put(&b, "|---|---|---|\n");
    for (size_t i = 0; i < cuplas_cfg_nremoved; i++) {
        const struct removed_key *gone = &cuplas_cfg_removed_keys[i];
        put(&b, "|");
        put_cell(&b, gone->name, true);
        put_cell(&b, gone->version, false);
        put_cell(&b, gone->advice, false);
        put(&b, "\n");
    }
    if (b.s)
        fputs(b.s, out);
    free(b.s);
    cuplas_config_free(&cfg);
}
