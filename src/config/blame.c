/*
 * blame.c - where a config node came from, and the errors that point at
 * it: file:line:col for the file's nodes, "--set KEY=VALUE" for an
 * override's (loader.h: override nodes come after the file's, so a node's
 * id says which). Used by yaml.c and values.c alike.
 */
#include "config/loader.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static int node_id(const struct loader *ld, const yaml_node_t *node)
{
    return (int)(node - ld->doc.nodes.start) + 1;
}

bool cuplas_cfg_from_file(const struct loader *ld, const yaml_node_t *node)
{
    return ld->path && node_id(ld, node) <= ld->nfile;
}

void cuplas_cfg_node_where(const struct loader *ld, const yaml_node_t *node, char *buf,
                           size_t size)
{
    buf[0] = '\0';
    if (cuplas_cfg_from_file(ld, node)) {
        snprintf(buf, size, "%s:%zu:%zu", ld->path, node->start_mark.line + 1,
                 node->start_mark.column + 1);
        return;
    }
    int id = node_id(ld, node);
    for (int k = ld->novr - 1; k >= 0; k--)
        if (ld->ovr[k].first <= id) {
            snprintf(buf, size, "--set %s", ld->ovr[k].text);
            return;
        }
}

char *cuplas_cfg_node_where_dup(const struct loader *ld, const yaml_node_t *node)
{
    size_t n = (ld->path ? strlen(ld->path) : 0) + 48;   /* ":LINE:COL", "--set " */
    for (int k = 0; k < ld->novr; k++)
        if (strlen(ld->ovr[k].text) + 48 > n)
            n = strlen(ld->ovr[k].text) + 48;
    char *buf = malloc(n);
    if (buf)
        cuplas_cfg_node_where(ld, node, buf, n);
    return buf;
}

/* Point the error at `node`: file:line:col (1-based), or the override. */
static void blame(const struct loader *ld, const yaml_node_t *node)
{
    if (cuplas_cfg_from_file(ld, node)) {
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

int cuplas_cfg_fail_at(const struct loader *ld, const yaml_node_t *node, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    /* at once into the error: a long text keeps its end (error.h) */
    int rc = cuplas_error_vset_(ld->err, CUPLAS_ERR_USAGE, __FILE__, __LINE__, fmt, ap);
    va_end(ap);
    if (node)
        blame(ld, node);
    return rc;
}

const char *cuplas_cfg_describe(const yaml_node_t *n, char *buf, size_t size)
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

int cuplas_cfg_fail_value(const struct loader *ld, const struct key *k, const char *name,
                          const yaml_node_t *node, const char *problem)
{
    char val[80], acc[256];
    return cuplas_cfg_fail_at(ld, node, "%s: %s %s (accepted: %s)", name,
                              cuplas_cfg_describe(node, val, sizeof val), problem,
                              cuplas_cfg_accepted(k, acc, sizeof acc));
}

int cuplas_cfg_fail_removed(const struct loader *ld, const yaml_node_t *node, const char *text,
                            const struct removed_key *gone)
{
    int rc = cuplas_cfg_fail_at(ld, node, "%s was removed in %s: %s", gone->name,
                                gone->version, gone->advice);
    if (text)
        cuplas_error_where(ld->err, "--set %s", text);
    return rc;
}
