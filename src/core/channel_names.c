/*
 * channel_names.c - channel selectors to column numbers (channel_names.h).
 *
 * Design fact: inputs have at most a few hundred columns, so every lookup
 * is a linear scan and a glob's matches are ordered by an insertion sort
 * of their indices in cols itself: no allocation, nothing to free.
 */
#include "core/channel_names.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_digit(char c) { return c >= '0' && c <= '9'; }

int cuplas_natural_cmp(const char *a, const char *b)
{
    while (*a && *b) {
        if (is_digit(*a) && is_digit(*b)) {
            const char *a0 = a, *b0 = b;
            while (*a0 == '0' && is_digit(a0[1]))
                a0++;
            while (*b0 == '0' && is_digit(b0[1]))
                b0++;
            const char *a1 = a0, *b1 = b0;
            while (is_digit(*a1))
                a1++;
            while (is_digit(*b1))
                b1++;
            if (a1 - a0 != b1 - b0)
                return a1 - a0 < b1 - b0 ? -1 : 1;
            int c = strncmp(a0, b0, (size_t)(a1 - a0));
            if (c)
                return c;
            a = a1;
            b = b1;
            continue;
        }
        if (*a != *b)
            return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
        a++;
        b++;
    }
    return (unsigned char)*a - (unsigned char)*b;
}

static int find(const char *const *names, int nnames, const char *s)
{
    for (int i = 0; i < nnames; i++)
        if (!strcmp(names[i], s))
            return i;
    return -1;
}

/* A decimal number of at most 9 digits spanning [s, e); -1 otherwise. */
static int number(const char *s, const char *e)
{
    int v = 0;
    if (s == e || e - s > 9)
        return -1;
    for (; s < e; s++) {
        if (!is_digit(*s))
            return -1;
        v = v * 10 + (*s - '0');
    }
    return v;
}

/* The unknown-name error, listing the first available names. */
static int unknown(const char *what, const char *sel, const char *const *names, int nnames,
                   cuplas_error *err)
{
    char list[200];
    size_t len = 0;
    list[0] = 0;
    /* stop once full: snprintf returns the untruncated length, so len can
       pass sizeof list and the next call would write past the end */
    for (int i = 0; i < nnames && i < 8 && len < sizeof list; i++)
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "",
                                names[i]);
    return cuplas_error_set(err, CUPLAS_ERR_USAGE, "unknown channel '%s'%s%s%s; available: "
                            "%s%s (%d in all)", what, strcmp(what, sel) ? " (from '" : "",
                            strcmp(what, sel) ? sel : "", strcmp(what, sel) ? "')" : "",
                            list, nnames > 8 ? ", ..." : "", nnames);
}

/* Append column c, refusing a second selection of it. */
static int add(int *cols, int *k, int c, const char *const *names, const char *sel,
               cuplas_error *err)
{
    for (int i = 0; i < *k; i++)
        if (cols[i] == c)
            return cuplas_error_set(err, CUPLAS_ERR_USAGE, "channel '%s' is selected twice "
                                    "(again by '%s')", names[c], sel);
    cols[(*k)++] = c;
    return 0;
}

int cuplas_channels_resolve(const char *const *sel, int nsel, const char *const *names,
                            int nnames, int *cols, int *k, cuplas_error *err)
{
    int rc = 0;
    *k = 0;
    for (int s = 0; s < nsel; s++) {
        const char *q = sel[s], *dash = strrchr(q, '-');
        int c = find(names, nnames, q);

        if (!*q)
            CUPLAS_FAIL(err, CUPLAS_ERR_USAGE, "empty channel name");
        if (c >= 0) {                                   /* exact name */
            CUPLAS_TRY(add(cols, k, c, names, q, err));
        } else if (strpbrk(q, "*?[")) {                 /* glob */
            int first = *k;
            for (int i = 0; i < nnames; i++) {
                if (fnmatch(q, names[i], 0))
                    continue;
                CUPLAS_TRY(add(cols, k, i, names, q, err));
                /* insertion into natural order among this glob's matches */
                for (int j = *k - 1; j > first &&
                     cuplas_natural_cmp(names[cols[j - 1]], names[cols[j]]) > 0; j--) {
                    int t = cols[j];
                    cols[j] = cols[j - 1];
                    cols[j - 1] = t;
                }
            }
            if (*k == first)
                CUPLAS_FAIL(err, CUPLAS_ERR_USAGE, "no channel matches '%s'", q);
        } else if ((c = number(q, q + strlen(q))) >= 0) {   /* index */
            if (c >= nnames)
                CUPLAS_FAIL(err, CUPLAS_ERR_USAGE, "channel index %d is out of range (the "
                            "input has %d channels)", c, nnames);
            CUPLAS_TRY(add(cols, k, c, names, q, err));
        } else if (dash && dash > q) {                 /* index or family range */
            const char *num = dash;
            while (num > q && is_digit(num[-1]))
                num--;
            int a = number(num, dash), b = number(dash + 1, q + strlen(q));
            size_t plen = (size_t)(num - q);
            if (a < 0 || b < 0)
                return unknown(q, q, names, nnames, err);
            if (a > b)
                CUPLAS_FAIL(err, CUPLAS_ERR_USAGE, "channel range '%s' is descending", q);
            for (int i = a; i <= b; i++) {
                char name[256];
                if (plen == 0) {
                    if (i >= nnames)
                        CUPLAS_FAIL(err, CUPLAS_ERR_USAGE, "channel index %d (from '%s') is "
                                    "out of range (the input has %d channels)", i, q, nnames);
                    CUPLAS_TRY(add(cols, k, i, names, q, err));
                    continue;
                }
                if (plen + 12 > sizeof name)
                    return unknown(q, q, names, nnames, err);
                snprintf(name, sizeof name, "%.*s%d", (int)plen, q, i);
                if ((c = find(names, nnames, name)) < 0)
                    return unknown(name, q, names, nnames, err);
                CUPLAS_TRY(add(cols, k, c, names, q, err));
            }
        } else {
            return unknown(q, q, names, nnames, err);
        }
    }
fail:
    return rc;
}

int cuplas_channel_index(const char *const *names, int nnames, const char *want)
{
    for (int c = 0; names && c < nnames; c++)
        if (names[c] && strcmp(names[c], want) == 0)
            return c;
    return -1;
}
