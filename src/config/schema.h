/*
 * schema.h - the config schema's types and tables, shared by the config
 * module's files (keys.c owns them; yaml.c, values.c and emit.c read them).
 * Not for other modules: their API is config/config.h.
 *
 * Design fact: one table row (struct key) describes a key completely for
 * every reader: the loader validates with it, the emitter writes the value
 * back through it and the key reference prints it. A key that is taken out
 * of the table goes into the removed-keys table instead, so a config that
 * still names it gets a pointed error rather than "unknown key".
 */
#ifndef CUPLAS_CONFIG_SCHEMA_H
#define CUPLAS_CONFIG_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>

#include "config/config.h"

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
    K_INPUTS,    /* cuplas_input_spec * + int count, entries: input keys  */
    K_SELECTORS, /* cuplas_selectors: channel names/globs/ranges          */
    K_SHAPE      /* int64_t[2]: "default" {0,0}, "auto" {-1,-1}, "square"
                    {-2,-2}, [H, W]                                       */
};

enum {
    F_MIN = 1u << 0,        /* `min` bounds the value                     */
    F_MAX = 1u << 1,        /* `max` bounds the value                     */
    F_MIN_OPEN = 1u << 2,   /* ... exclusively                            */
    F_MAX_OPEN = 1u << 3,
    F_EVEN = 1u << 4,       /* integers: must be even                     */
    F_REQUIRED = 1u << 5,   /* must be present (see check_config)         */
    F_NONEMPTY = 1u << 6,   /* strings and lists: "" and [] are errors    */
    F_EMPTY_NULL = 1u << 7, /* strings: "" (or no value) stores NULL      */
    F_PARAMS_IF_SET = 1u << 8, /* in the params attribute only when set:
                                 results of configs from before the key
                                 keep their bytes                          */
    F_PARAMS_NONZERO = 1u << 9, /* enums: left out of the params attribute
                                  while 0 (the default), so results of
                                  configs that predate the key keep their
                                  bytes and their resume identity        */
    F_PARAMS_NONDEFAULT = 1u << 10 /* sort.* integers: left out of the params
                                  attribute while at sort.preset's value
                                  (the same reason; the preset is named
                                  there unless default, so it reads back) */
};

/* Ends a key's `choices` (no choice is negative). */
#define CHOICES_END (-1)

struct key {
    const char *name;          /* dotted path; input keys: within an entry */
    enum kind kind;
    size_t off;                /* offset of the field in its struct        */
    size_t n_off;              /* list kinds: offset of the int count      */
    double min, max;           /* with F_MIN / F_MAX                       */
    unsigned flags;
    const char *const *names;  /* K_ENUM: NULL-terminated, index = value   */
    size_t aux_off;            /* K_CHANNELS: its cuplas_selectors (names) */
    const char *doc;           /* one line, shown in the key reference     */
    const int *choices;        /* K_INT keys that take one of a few values:
                                  the values, ended by CHOICES_END; the
                                  loader refuses any other, and errors and
                                  the reference list them ("4, 8 or 16")  */
};

/* A key that configs used to accept. `advice` says what replaces it; the
 * error reads "<name> was removed in <version>: <advice>". */
struct removed_key {
    const char *name;          /* dotted path, as it was in the schema     */
    const char *version;       /* the first release without it            */
    const char *advice;        /* one line: what to do instead            */
};

/* Row counts, constants so that the loader can size arrays by them;
 * keys.c asserts that they match the tables. */
#define CUPLAS_CFG_NKEYS 64
#define CUPLAS_CFG_NINPUT_KEYS 5

/* The config's keys in schema order (the order of `cuplas check`, the dump
 * and the docs), and the keys of one `inputs:` entry. */
extern const struct key cuplas_cfg_keys[];
extern const struct key cuplas_cfg_input_keys[];

extern const struct removed_key cuplas_cfg_removed_keys[];
extern const size_t cuplas_cfg_nremoved;

/* The removed key `name` (a full dotted path), or NULL. */
const struct removed_key *cuplas_cfg_find_removed(const char *name);

/* Row `name` of keys[0..n), or NULL. */
const struct key *cuplas_cfg_find_key(const struct key *keys, size_t n, const char *name);

/* Is `path` a section, i.e. the prefix of some dotted key? */
bool cuplas_cfg_is_section(const struct key *keys, size_t n, const char *path);

/* "seed, permuter, ...": the names accepted right under `prefix` (which
 * ends in '.', or is "" for the top level), into buf. */
const char *cuplas_cfg_children(const struct key *keys, size_t n, const char *prefix,
                                char *buf, size_t size);

/* "a number in (0, 1)": what a key accepts, for messages and the docs. */
const char *cuplas_cfg_accepted(const struct key *k, char *buf, size_t size);

/* names[v] of a NULL-terminated name list, "?" when v is out of range. */
const char *cuplas_cfg_enum_name(const char *const *names, int v);

/* Free what the loader allocates: a string vector, one `inputs:` entry. */
void cuplas_cfg_free_strv(char **v, int n);
void cuplas_cfg_free_input(cuplas_input_spec *in);

#endif
