/*
 * loader.h - the state of one cuplas_config_load, shared by yaml.c (the
 * document: reading, --set grafting, the rules across keys), values.c (the
 * schema walk, one node into one typed field) and blame.c (where a node
 * came from, errors). Not for other modules.
 *
 * Design fact: override nodes are appended after the file's nodes, so a
 * node's id alone says whether an error points at file:line:col or at
 * "--set ..."; every error goes through cuplas_cfg_fail_at for that.
 */
#ifndef CUPLAS_CONFIG_LOADER_H
#define CUPLAS_CONFIG_LOADER_H

#include <stdbool.h>
#include <string.h>
#include <strings.h>

#include <yaml.h>

#include "config/schema.h"

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
    const yaml_node_t *seen[CUPLAS_CFG_NKEYS]; /* node that set each row  */
};

static inline const char *scalar_text(const yaml_node_t *n)
{
    return (const char *)n->data.scalar.value;
}

static inline bool is_plain(const yaml_node_t *n)
{
    return n->type == YAML_SCALAR_NODE
        && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
}

/* `key:` with nothing after it, `~` and `null` are YAML's null. */
static inline bool is_null(const yaml_node_t *n)
{
    if (!is_plain(n))
        return false;
    const char *s = scalar_text(n);
    return s[0] == '\0' || strcmp(s, "~") == 0 || strcasecmp(s, "null") == 0;
}

/* blame.c: errors. */

/* Did `node` come from the config file (not from an override)? */
bool cuplas_cfg_from_file(const struct loader *ld, const yaml_node_t *node);

/* Where `node` was written: "cfg.yaml:LINE:COL", "--set KEY=VALUE", or "". */
void cuplas_cfg_node_where(const struct loader *ld, const yaml_node_t *node, char *buf,
                           size_t size);

/* The same, malloc'd at its full length (a --set value may be a long path);
 * NULL when out of memory. */
char *cuplas_cfg_node_where_dup(const struct loader *ld, const yaml_node_t *node);

/* A usage error with the message, pointed at `node` (file:line:col, or the
 * --set that made it); node NULL: no location. Returns the error code. */
int cuplas_cfg_fail_at(const struct loader *ld, const yaml_node_t *node, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The usual error: "<name>: <value> <problem> (accepted: <what>)". */
int cuplas_cfg_fail_value(const struct loader *ld, const struct key *k, const char *name,
                          const yaml_node_t *node, const char *problem);

/* How a node reads in a message: `1.5`, `"abc"`, `a list`. */
const char *cuplas_cfg_describe(const yaml_node_t *n, char *buf, size_t size);

/* A key of the removed-keys table, named at `node` in the file or by the
 * override `text` (then node is NULL). */
int cuplas_cfg_fail_removed(const struct loader *ld, const yaml_node_t *node, const char *text,
                            const struct removed_key *gone);

/* values.c: read the keys of mapping `map` (under dotted `prefix`; `shown` is
 * put before the names in messages, "inputs[2]." for an entry) into base,
 * recording in seen[row] the node that set each row of keys. */
int cuplas_cfg_walk_mapping(struct loader *ld, const yaml_node_t *map, const char *prefix,
                            const char *shown, const struct key *keys, size_t nkeys,
                            void *base, const yaml_node_t **seen);

/* values.c: store `node` into k's field of base (a cuplas_config or a
 * cuplas_input_spec), replacing what was there; `name` is the key as shown. */
int cuplas_cfg_set_value(struct loader *ld, const struct key *k, const char *name,
                         const yaml_node_t *node, void *base);

#endif
