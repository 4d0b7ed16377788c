/*
 * json.c - JSON string/number writers and a small recursive-descent
 * reader (see json.h).
 *
 * Design fact: manifests are written by cuplas itself, but `report` reads
 * whatever is in the folder (truncated copies, hand edits), so the reader
 * rejects anything malformed with an offset instead of guessing, and
 * bounds its nesting so a hostile file cannot exhaust the stack.
 */
#include "util/json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/log.h" /* cuplas_json_string: the one string escaper */

#define MAX_DEPTH 64

typedef struct parser {
    const char *s;
    size_t len, pos;
    cuplas_error *err;
} parser;

static int fail_at(parser *p, const char *what)
{
    return cuplas_error_set(p->err, CUPLAS_ERR_INPUT, "bad JSON at byte %zu: %s", p->pos,
                            what);
}

static void skip_ws(parser *p)
{
    while (p->pos < p->len && strchr(" \t\r\n", p->s[p->pos]) && p->s[p->pos])
        p->pos++;
}

static int literal(parser *p, const char *word)
{
    size_t n = strlen(word);
    if (p->len - p->pos < n || memcmp(p->s + p->pos, word, n))
        return fail_at(p, "unknown literal");
    p->pos += n;
    return 0;
}

static int hex4(parser *p, unsigned *v)
{
    *v = 0;
    if (p->len - p->pos < 4)
        return -1;
    for (int k = 0; k < 4; k++) {
        char c = p->s[p->pos++];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
              : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0)
            return -1;
        *v = *v * 16 + (unsigned)d;
    }
    return 0;
}

static void put_utf8(char *out, size_t *n, unsigned cp)
{
    if (cp < 0x80) {
        out[(*n)++] = (char)cp;
    } else if (cp < 0x800) {
        out[(*n)++] = (char)(0xC0 | cp >> 6);
        out[(*n)++] = (char)(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out[(*n)++] = (char)(0xE0 | cp >> 12);
        out[(*n)++] = (char)(0x80 | (cp >> 6 & 0x3F));
        out[(*n)++] = (char)(0x80 | (cp & 0x3F));
    } else {
        out[(*n)++] = (char)(0xF0 | cp >> 18);
        out[(*n)++] = (char)(0x80 | (cp >> 12 & 0x3F));
        out[(*n)++] = (char)(0x80 | (cp >> 6 & 0x3F));
        out[(*n)++] = (char)(0x80 | (cp & 0x3F));
    }
}

/* A string starting at the opening quote; *out is malloc'd. */
static int parse_string(parser *p, char **out)
{
    size_t start = ++p->pos, n = 0;
    char *buf;
    int rc = 0;

    /* decoded text is never longer than the escaped text */
    while (p->pos < p->len && p->s[p->pos] != '"')
        p->pos += p->s[p->pos] == '\\' ? 2 : 1;
    if (p->pos >= p->len)
        return fail_at(p, "unterminated string");
    if (!(buf = malloc(p->pos - start + 1)))
        return cuplas_error_set(p->err, CUPLAS_ERR_NOMEM, "out of memory");
    p->pos = start;
    while (p->s[p->pos] != '"') {
        unsigned char c = (unsigned char)p->s[p->pos++];
        if (c < 0x20)
            CUPLAS_FAIL(p->err, CUPLAS_ERR_INPUT, "bad JSON at byte %zu: control character "
                        "in a string", p->pos - 1);
        if (c != '\\') {
            buf[n++] = (char)c;
            continue;
        }
        char e = p->s[p->pos++];
        const char *from = "\"\\/bfnrt", *to = "\"\\/\b\f\n\r\t";
        const char *k = e ? strchr(from, e) : NULL;
        if (k) {
            buf[n++] = to[k - from];
        } else if (e == 'u') {
            unsigned cp, lo;
            if (hex4(p, &cp) != 0)
                CUPLAS_FAIL(p->err, CUPLAS_ERR_INPUT, "bad JSON at byte %zu: bad \\u escape",
                            p->pos);
            if (cp >= 0xD800 && cp < 0xDC00) {
                /* a surrogate pair is one code point in two escapes */
                if (p->len - p->pos < 6 || p->s[p->pos] != '\\' || p->s[p->pos + 1] != 'u')
                    CUPLAS_FAIL(p->err, CUPLAS_ERR_INPUT, "bad JSON at byte %zu: lone "
                                "surrogate", p->pos);
                p->pos += 2;
                if (hex4(p, &lo) != 0 || lo < 0xDC00 || lo > 0xDFFF)
                    CUPLAS_FAIL(p->err, CUPLAS_ERR_INPUT, "bad JSON at byte %zu: bad "
                                "surrogate pair", p->pos);
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            } else if (cp >= 0xDC00 && cp < 0xE000) {
                CUPLAS_FAIL(p->err, CUPLAS_ERR_INPUT, "bad JSON at byte %zu: lone surrogate",
                            p->pos);
            }
            put_utf8(buf, &n, cp);
        } else {
            CUPLAS_FAIL(p->err, CUPLAS_ERR_INPUT, "bad JSON at byte %zu: bad escape",
                        p->pos - 1);
        }
    }
    p->pos++;
    buf[n] = '\0';
    *out = buf;
    return 0;
fail:
    free(buf);
    return rc;
}

static int parse_number(parser *p, double *v)
{
    size_t i = p->pos;
    const char *s = p->s;
    char tmp[64];

    /* the JSON grammar is stricter than strtod: check it, then convert */
    if (i < p->len && s[i] == '-')
        i++;
    if (i < p->len && s[i] == '0')
        i++;
    else if (i < p->len && s[i] >= '1' && s[i] <= '9')
        while (i < p->len && s[i] >= '0' && s[i] <= '9')
            i++;
    else
        return fail_at(p, "bad number");
    if (i < p->len && s[i] == '.') {
        if (++i >= p->len || s[i] < '0' || s[i] > '9')
            return fail_at(p, "bad number");
        while (i < p->len && s[i] >= '0' && s[i] <= '9')
            i++;
    }
    if (i < p->len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < p->len && (s[i] == '+' || s[i] == '-'))
            i++;
        if (i >= p->len || s[i] < '0' || s[i] > '9')
            return fail_at(p, "bad number");
        while (i < p->len && s[i] >= '0' && s[i] <= '9')
            i++;
    }
    if (i - p->pos >= sizeof tmp)
        return fail_at(p, "number too long");
    memcpy(tmp, s + p->pos, i - p->pos);
    tmp[i - p->pos] = '\0';
    *v = strtod(tmp, NULL);
    p->pos = i;
    return 0;
}

static int parse_value(parser *p, cuplas_json *v, int depth);

/* Grow the items (and keys) of a container by one slot. */
static int push(parser *p, cuplas_json *v, int cap_needed, int *cap)
{
    if (cap_needed <= *cap)
        return 0;
    int c = *cap ? 2 * *cap : 4;
    cuplas_json *items = realloc(v->items, (size_t)c * sizeof *items);
    if (items)
        v->items = items;
    if (items && v->type == CUPLAS_JSON_OBJECT) {
        char **keys = realloc(v->keys, (size_t)c * sizeof *keys);
        if (!keys)
            items = NULL;
        else
            v->keys = keys;
    }
    if (!items)
        return cuplas_error_set(p->err, CUPLAS_ERR_NOMEM, "out of memory");
    *cap = c;
    return 0;
}

static int parse_container(parser *p, cuplas_json *v, int depth)
{
    int object = p->s[p->pos] == '{', cap = 0, rc = 0;
    char close = object ? '}' : ']';

    v->type = object ? CUPLAS_JSON_OBJECT : CUPLAS_JSON_ARRAY;
    if (depth >= MAX_DEPTH)
        return fail_at(p, "nested too deeply");
    p->pos++;
    skip_ws(p);
    if (p->pos < p->len && p->s[p->pos] == close) {
        p->pos++;
        return 0;
    }
    for (;;) {
        char *key = NULL;
        skip_ws(p);
        if (object) {
            if (p->pos >= p->len || p->s[p->pos] != '"')
                return fail_at(p, "expected a member name");
            CUPLAS_TRY(parse_string(p, &key));
            skip_ws(p);
            if (p->pos >= p->len || p->s[p->pos] != ':') {
                free(key);
                return fail_at(p, "expected ':'");
            }
            p->pos++;
        }
        if ((rc = push(p, v, v->n + 1, &cap)) != 0) {
            free(key);
            return rc;
        }
        memset(&v->items[v->n], 0, sizeof v->items[v->n]);
        if (object)
            v->keys[v->n] = key;
        v->n++;   /* counted before parsing: a failure frees what was read */
        CUPLAS_TRY(parse_value(p, &v->items[v->n - 1], depth + 1));
        skip_ws(p);
        if (p->pos < p->len && p->s[p->pos] == ',') {
            p->pos++;
            continue;
        }
        if (p->pos < p->len && p->s[p->pos] == close) {
            p->pos++;
            return 0;
        }
        return fail_at(p, object ? "expected ',' or '}'" : "expected ',' or ']'");
    }
fail:
    return rc;
}

static int parse_value(parser *p, cuplas_json *v, int depth)
{
    skip_ws(p);
    if (p->pos >= p->len)
        return fail_at(p, "unexpected end");
    switch (p->s[p->pos]) {
    case '{':
    case '[':
        return parse_container(p, v, depth);
    case '"':
        v->type = CUPLAS_JSON_STRING;
        return parse_string(p, &v->string);
    case 't':
        v->type = CUPLAS_JSON_BOOL;
        v->boolean = 1;
        return literal(p, "true");
    case 'f':
        v->type = CUPLAS_JSON_BOOL;
        return literal(p, "false");
    case 'n':
        v->type = CUPLAS_JSON_NULL;
        return literal(p, "null");
    default:
        v->type = CUPLAS_JSON_NUMBER;
        return parse_number(p, &v->number);
    }
}

static void free_tree(cuplas_json *v)
{
    for (int i = 0; i < v->n; i++) {
        free_tree(&v->items[i]);
        if (v->keys)
            free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->string);
}

void cuplas_json_free(cuplas_json *v)
{
    if (!v)
        return;
    free_tree(v);
    free(v);
}

int cuplas_json_parse(const char *text, size_t len, cuplas_json **out, cuplas_error *err)
{
    parser p = {text, len, 0, err};
    cuplas_json *v = calloc(1, sizeof *v);
    int rc = 0;

    *out = NULL;
    if (!v)
        return cuplas_error_set(err, CUPLAS_ERR_NOMEM, "out of memory");
    CUPLAS_TRY(parse_value(&p, v, 0));
    skip_ws(&p);
    if (p.pos != len)
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "bad JSON at byte %zu: trailing text", p.pos);
    *out = v;
    return 0;
fail:
    cuplas_json_free(v);
    return rc;
}

const cuplas_json *cuplas_json_get(const cuplas_json *obj, const char *key)
{
    if (!obj || obj->type != CUPLAS_JSON_OBJECT)
        return NULL;
    for (int i = 0; i < obj->n; i++)
        if (!strcmp(obj->keys[i], key))
            return &obj->items[i];
    return NULL;
}

const char *cuplas_json_get_str(const cuplas_json *obj, const char *key, const char *dflt)
{
    const cuplas_json *v = cuplas_json_get(obj, key);
    return v && v->type == CUPLAS_JSON_STRING ? v->string : dflt;
}

double cuplas_json_get_num(const cuplas_json *obj, const char *key, double dflt)
{
    const cuplas_json *v = cuplas_json_get(obj, key);
    return v && v->type == CUPLAS_JSON_NUMBER ? v->number : dflt;
}

long long cuplas_json_int(const cuplas_json *v, long long lo, long long hi, long long dflt)
{
    /* the comparisons fail for NaN as well */
    if (!v || v->type != CUPLAS_JSON_NUMBER || !(v->number >= (double)lo) ||
        !(v->number <= (double)hi) || v->number != floor(v->number))
        return dflt;
    return (long long)v->number;
}

long long cuplas_json_get_int(const cuplas_json *obj, const char *key, long long lo, long long hi,
                              long long dflt)
{
    return cuplas_json_int(cuplas_json_get(obj, key), lo, hi, dflt);
}

void cuplas_json_write_str(FILE *f, const char *s)
{
    /* the log's escaper writes "" for NULL; manifests need null */
    if (s)
        cuplas_json_string(f, s);
    else
        fputs("null", f);
}

void cuplas_json_write_num(FILE *f, double v)
{
    if (!isfinite(v))
        fputs("null", f);
    else
        fprintf(f, "%.17g", v);
}
