/*
 * fuzz_ply.c - libFuzzer target: the PLY, .splat and compressed PLY
 * readers (io/ply.c, io/splat.c, io/ply_compressed.c) and the PLY writer
 * on arbitrary bytes (seed compressed.ply: a compressed PLY of 3 splats
 * with 3 SH bytes each).
 *
 * The first byte picks the file name (odd: *.splat, even: *.ply); the
 * rest is the file. Each input is opened, read, every property extracted
 * as doubles, and written back in reverse row order; every failure must
 * be an error with its reason, never a crash or a leak. Bodies over 16 MiB are
 * skipped after the header (the header check bounds them by the file's
 * size already; this keeps the fuzzer's memory small).
 *
 *   make fuzz && fuzz/fuzz_ply fuzz/corpus/ply
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/ply.h"
#include "fuzz_file.h"

#define MAX_BODY ((size_t)16 << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Every failure says why. (Names are data and may hold a newline: the
 * log and the CLI escape control characters when they print them.) */
static void one_line(const cuplas_error *err)
{
    if (!err->msg[0])
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64], out[64];
    cuplas_ply p;
    cuplas_error err = {0};

    if (size < 1)
        return 0;
    snprintf(path, sizeof path, "/tmp/fuzz_ply.XXXXXX%s", data[0] & 1 ? ".splat" : ".ply");
    if (fuzz_file(path, data[0] & 1 ? 6 : 4, data + 1, size - 1) != 0)
        return 0;
    if (cuplas_ply_open(path, &p, &err) != 0) {
        one_line(&err);
        cuplas_ply_close(&p);
        unlink(path);
        return 0;
    }
    size_t bytes = cuplas_ply_body_bytes(&p);
    void *rows = bytes <= MAX_BODY ? malloc(bytes ? bytes : 1) : NULL;
    if (rows && cuplas_ply_read(&p, rows, NULL, &err) == 0) {
        int *cols = malloc((size_t)p.nprops * sizeof *cols);
        double *x = malloc((size_t)p.n * (size_t)p.nprops * sizeof *x + 1);
        int64_t *order = malloc((size_t)p.n * sizeof *order);
        if (cols && x && order) {
            for (int c = 0; c < p.nprops; c++)
                cols[c] = c;
            cuplas_ply_extract(&p, rows, cols, p.nprops, x);
            for (int64_t i = 0; i < p.n; i++)
                order[i] = p.n - 1 - i;
            snprintf(out, sizeof out, "%s.out.ply", path);
            if (cuplas_ply_write(&p, rows, order, p.n, out, NULL, &err) != 0)
                one_line(&err);
            unlink(out);
        }
        free(cols);
        free(x);
        free(order);
    } else if (rows) {
        one_line(&err);
    }
    free(rows);
    cuplas_ply_close(&p);
    unlink(path);
    return 0;
}
