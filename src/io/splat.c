/*
 * splat.c - antimatter15 .splat as a PLY-shaped table (splat.h).
 *
 * Design facts: the file is read in chunks of 64Ki records (2 MiB), each
 * chunk one item of a loop on the caller's pool: read into a scratch
 * buffer of its own and decoded straight into its rows of the caller's
 * buffer. Decoding is four log()s and a few divisions a record, and a
 * production scene has millions (4.6M: 0.21 s on one thread of the
 * development VM; bench/results/2026-11-28-cpu-decpar). A record's floats
 * depend on its 32 bytes only, so they are the same on any thread count,
 * and memory is the decoded table plus one chunk a thread at work. A
 * failing chunk is reported as the sequential loop did: the first in file
 * order (cuplas_par_for's lowest item), with the splats before it. The
 * decode uses only the bytes (explicit little-endian loads), so it is the
 * same on any host.
 */
#define _GNU_SOURCE
#include "io/splat.h"

#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/ply_priv.h"
#include "util/fsutil.h"

#define CHUNK 65536

static const char *const names[CUPLAS_SPLAT_NPROPS] = {
    "x", "y", "z", "f_dc_0", "f_dc_1", "f_dc_2", "opacity",
    "scale_0", "scale_1", "scale_2", "rot_0", "rot_1", "rot_2", "rot_3",
};

#define SFAIL(code, ...) CUPLAS_FAIL_IN(err, code, path, __VA_ARGS__)

int cuplas_splat_open(const char *path, cuplas_ply *p, cuplas_error *err)
{
    int rc = 0;
    struct stat st;

    if (stat(path, &st))
        SFAIL(CUPLAS_ERR_INPUT, "cannot open: %s", strerror(errno));
    if (st.st_size == 0 || st.st_size % CUPLAS_SPLAT_RECORD)
        SFAIL(CUPLAS_ERR_INPUT, "not a .splat file: its size, %lld bytes, is not a positive "
              "multiple of %d", (long long)st.st_size, CUPLAS_SPLAT_RECORD);
    p->format = CUPLAS_PLY_SPLAT;
    p->file_size = (int64_t)st.st_size;
    p->n = p->file_size / CUPLAS_SPLAT_RECORD;
    /* the header an export writes: a graphdeco point_cloud.ply at SH degree 0 */
    rc = cuplas_ply__float_table(p, names, CUPLAS_SPLAT_NPROPS,
                                 "decoded by cuplas from an antimatter15 .splat", err);
fail:
    return rc;
}

float cuplas_ply__opacity_u8(unsigned a)
{
    /* opacity = logit(p) with p clamped half a step inside (0, 1) */
    const double pmin = 0.5 / 255.0, pmax = 254.5 / 255.0;
    double q = a / 255.0;
    q = q < pmin ? pmin : q > pmax ? pmax : q;
    return (float)log(q / (1.0 - q));
}

static float le_f32(const unsigned char *b)
{
    uint32_t u = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
                 (uint32_t)b[3] << 24;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

void cuplas_splat_decode(const unsigned char *rec, int64_t n, float *out)
{
    for (int64_t i = 0; i < n; i++, rec += CUPLAS_SPLAT_RECORD, out += CUPLAS_SPLAT_NPROPS) {
        for (int k = 0; k < 3; k++)
            out[k] = le_f32(rec + 4 * k);
        for (int k = 0; k < 3; k++)
            out[3 + k] = (float)((rec[24 + k] / 255.0 - 0.5) / CUPLAS_SH_C0);
        out[6] = cuplas_ply__opacity_u8(rec[27]);
        for (int k = 0; k < 3; k++) {
            double s = le_f32(rec + 12 + 4 * k);
            out[7 + k] = (float)(s > 0 ? log(s) : log(FLT_MIN));
        }
        for (int k = 0; k < 4; k++)
            out[10 + k] = (float)((rec[28 + k] - 128) / 128.0);
    }
}

typedef struct splat_job {
    int fd;
    int64_t n;      /* records in the file */
    float *rows;
} splat_job;

#define NO_MEMORY (-2)

/* Chunk c: 0, an errno (a read error), -1 when the file ends inside it,
 * or NO_MEMORY. */
static int read_chunk(void *ctx, int64_t c)
{
    const splat_job *x = ctx;
    int64_t first = c * CHUNK, k = x->n - first < CHUNK ? x->n - first : CHUNK;
    unsigned char *buf = malloc((size_t)k * CUPLAS_SPLAT_RECORD);
    int code = buf ? cuplas_pread_full(x->fd, buf, (size_t)k * CUPLAS_SPLAT_RECORD,
                                       first * CUPLAS_SPLAT_RECORD, NULL)
                   : NO_MEMORY;

    if (code == 0)
        cuplas_splat_decode(buf, k, x->rows + first * CUPLAS_SPLAT_NPROPS);
    free(buf);
    return code;
}

int cuplas_splat_read(const cuplas_ply *p, void *rows, cuplas_pool *pool, cuplas_error *err)
{
    const char *path = p->path;
    splat_job x = {open(path, O_RDONLY), p->n, rows};
    int64_t nc = cuplas_par_blocks(p->n, CHUNK), c;
    int rc = 0, code = 0;

    if (x.fd < 0)
        SFAIL(CUPLAS_ERR_INPUT, "cannot open: %s", strerror(errno));
    c = cuplas_par_for(pool, nc, read_chunk, &x, &code);
    if (c < nc && code == NO_MEMORY)
        SFAIL(CUPLAS_ERR_NOMEM, "out of memory");
    if (c < nc && code > 0)
        SFAIL(CUPLAS_ERR_INPUT, "cannot read: %s", strerror(code));
    if (c < nc)   /* the chunks before c were whole */
        SFAIL(CUPLAS_ERR_INPUT, "truncated: the file ended after %lld of %lld splats "
              "(did it change?)", (long long)(c * CHUNK), (long long)p->n);
fail:
    if (x.fd >= 0)
        close(x.fd);
    return rc;
}
