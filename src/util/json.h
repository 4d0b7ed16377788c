/*
 * json.h - the little JSON cuplas needs: write strings and numbers with
 * correct escaping, and read back a document into a tree (manifests).
 *
 * The reader is a strict RFC 8259 parser without extensions; it keeps
 * object members in file order and does no key deduplication.
 */
#ifndef CUPLAS_JSON_H
#define CUPLAS_JSON_H

#include <stddef.h>
#include <stdio.h>

#include "util/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    CUPLAS_JSON_NULL,
    CUPLAS_JSON_BOOL,
    CUPLAS_JSON_NUMBER,
    CUPLAS_JSON_STRING,
    CUPLAS_JSON_ARRAY,
    CUPLAS_JSON_OBJECT
} cuplas_json_type;

typedef struct cuplas_json {
    cuplas_json_type type;
    int boolean;
    double number;
    char *string;                 /* STRING (NUL-terminated; may hold \u0000 cut) */
    struct cuplas_json *items;    /* ARRAY elements / OBJECT values              */
    char **keys;                  /* OBJECT keys, parallel to items              */
    int n;
} cuplas_json;

/* Parse text[0..len) into a new tree (*out, free with cuplas_json_free).
 * Errors (CUPLAS_ERR_INPUT) name the byte offset. */
int cuplas_json_parse(const char *text, size_t len, cuplas_json **out, cuplas_error *err);
void cuplas_json_free(cuplas_json *v);

/* Member of an object (first match), or NULL. */
const cuplas_json *cuplas_json_get(const cuplas_json *obj, const char *key);
/* Typed member access with a fallback for absent / other-typed members. */
const char *cuplas_json_get_str(const cuplas_json *obj, const char *key, const char *dflt);
double cuplas_json_get_num(const cuplas_json *obj, const char *key, double dflt);
/* An integer within [lo, hi] (|bounds| at most 2^53, where doubles are
 * exact), else dflt: absent, another type, a fraction or out of range.
 * Casting a JSON number straight to int is undefined once it is too large
 * (a damaged manifest's "pid": 1e300). */
#define CUPLAS_JSON_INT_MAX (1LL << 53)
long long cuplas_json_int(const cuplas_json *v, long long lo, long long hi, long long dflt);
long long cuplas_json_get_int(const cuplas_json *obj, const char *key, long long lo, long long hi,
                              long long dflt);

/* Writers: a quoted, escaped string (NULL -> null); a number (%.17g,
 * NaN/Inf -> null, which JSON cannot represent). */
void cuplas_json_write_str(FILE *f, const char *s);
void cuplas_json_write_num(FILE *f, double v);

#ifdef __cplusplus
}
#endif
#endif
