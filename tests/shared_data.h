/*
 * shared_data.h - reading files whole, and the shared data files the
 * suites use (shared/data beside the checkout, or $CUPLAS_SHARED_DATA):
 * a suite whose file is absent skips with a note. Include after cmocka.h.
 */
#ifndef CUPLAS_TESTS_SHARED_DATA_H
#define CUPLAS_TESTS_SHARED_DATA_H

#include <stdio.h>
#include <stdlib.h>

/* A whole file into a malloc'd NUL-terminated buffer (size in *n if n);
 * NULL when it cannot be opened. */
static inline char *tu_slurp_path(const char *path, size_t *n)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    fseek(fp, 0, SEEK_END);
    long size = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char *buf = malloc((size_t)size + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)size, fp), (size_t)size);
    buf[size] = '\0';
    fclose(fp);
    if (n)
        *n = (size_t)size;
    return buf;
}

/* The path of shared data file `rel` ("scenes/plant.splat") into
 * buf[size]; NULL, with a "skipped" note, when it cannot be read. */
static inline const char *tu_shared_path(const char *rel, char *buf, size_t size)
{
    const char *dir = getenv("CUPLAS_SHARED_DATA");
    snprintf(buf, size, "%s/%s", dir ? dir : CUPLAS_SRCDIR "/../shared/data", rel);
    FILE *fp = fopen(buf, "rb");
    if (!fp) {
        print_message("skipped: %s not found (set CUPLAS_SHARED_DATA)\n", buf);
        return NULL;
    }
    fclose(fp);
    return buf;
}

/* Shared data file `rel` ("colors_1024_random.png", "bad-inputs/...")
 * read whole (tu_slurp_path); NULL, with a "skipped" note, when absent. */
static inline char *tu_shared_data(const char *rel, size_t *n)
{
    char path[4096];
    const char *dir = getenv("CUPLAS_SHARED_DATA");
    snprintf(path, sizeof path, "%s/%s", dir ? dir : CUPLAS_SRCDIR "/../shared/data", rel);
    char *buf = tu_slurp_path(path, n);
    if (!buf)
        print_message("skipped: %s not found (set CUPLAS_SHARED_DATA)\n", path);
    return buf;
}

#endif
