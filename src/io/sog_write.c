/*
 * sog_write.c - PlayCanvas SOG version 2 from a sorted grid (sog_write.h).
 *
 * Design facts: the images are encoded one task each (WebP at method 6
 * takes seconds an image, and the bytes do not depend on the threads),
 * into the caller's folder; meta.json last. With the SH palette on a GPU
 * the five attribute images are encoded on a helper thread meanwhile
 * (6.1M splats: 26 s of k-means, 10 s of WebP, bench/results/
 * 2026-11-29-h200-v19); a CPU palette takes every core itself, so there
 * the images follow it. The caller makes the folder appear whole (a
 * temporary name renamed), so a failure here leaves only what the caller
 * removes.
 */
#define _GNU_SOURCE /* asprintf */
#include "cuplas_build.h"
#include "io/sog_write.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/channel_names.h"
#include "eval/schemes.h"
#include "io/dtype.h"
#include "util/clock.h"
#include "util/json.h"

/* The properties the format needs (by name: any column order). */
static const char *const NEEDED[] = {"x",       "y",       "z",       "f_dc_0", "f_dc_1",
                                     "f_dc_2",  "opacity", "scale_0", "scale_1", "scale_2",
                                     "rot_0",   "rot_1",   "rot_2",   "rot_3"};
#define NNEEDED (int)(sizeof NEEDED / sizeof NEEDED[0])

static const char *const IMAGES[] = {"means_l", "means_u", "scales", "quats", "sh0"};
#define NIMAGES 5
#define MAXIMAGES (NIMAGES + 2) /* and shN_centroids, shN_labels */

int cuplas_sog_check_names(const char *const *names, int C, int sh, cuplas_sog_sh *bands,
                           int *col, cuplas_error *err)
{
    char missing[256] = "";
    size_t at = 0;
    cuplas_sog_sh spare = {0};
    int spare_col[CUPLAS_PALETTE_MAX_D];

    if (!names)
        return cuplas_error_set(err, CUPLAS_ERR_INPUT, "no channel_names: nothing names the "
                                "channels as 3DGS properties (a scene's, or an HDF5 input's "
                                "columns attribute)");
    for (int k = 0; k < NNEEDED; k++)
        if (cuplas_channel_index(names, C, NEEDED[k]) < 0 && at < sizeof missing)
            at += (size_t)snprintf(missing + at, sizeof missing - at, "%s%s", at ? ", " : "",
                                   NEEDED[k]);
    if (at)
        return cuplas_error_set(err, CUPLAS_ERR_INPUT, "PlayCanvas SOG needs the 3DGS "
                                "properties; missing: %s", missing);
    if (!bands)
        bands = &spare, col = spare_col;
    bands->bands = 0;
    if (sh && cuplas_sog_sh_bands(names, C, bands, col, err) != 0)
        return (int)err->code;
    return 0;
}

int cuplas_sog_check(const char *const *names, int C, const int64_t *index, int64_t cells,
                     int sh, cuplas_sog_plan *p, cuplas_error *err)
{
    if (cuplas_sog_check_names(names, C, sh, &p->sh, p->col, err) != 0)
        return (int)err->code;
    p->count = 0;
    while (p->count < cells && index[p->count] >= 0)
        p->count++;
    for (int64_t i = p->count; i < cells; i++)
        if (index[i] >= 0)
            return cuplas_error_set(err, CUPLAS_ERR_INPUT, "empty cell %lld lies before the "
                                    "splat in cell %lld: PlayCanvas SOG has no holes (sort with "
                                    "grid.fit: crop, as configs/playcanvas.yaml does)",
                                    (long long)p->count, (long long)i);
    if (p->count == 0)
        return cuplas_error_set(err, CUPLAS_ERR_INPUT, "no splats");
    return 0;
}

int cuplas_sog_channels(const char *const *names, int C, int sh, int *use, const char **sub)
{
    int n = 0;
    for (int pass = 0; pass < 2; pass++)   /* the needed ones, then f_rest_* */
        for (int c = 0; c < C; c++) {
            int keep = pass == 1 && sh && !strncmp(names[c], "f_rest_", 7);
            for (int k = 0; pass == 0 && !keep && k < NNEEDED; k++)
                keep = !strcmp(names[c], NEEDED[k]);
            if (keep) {
                use[n] = c;
                sub[n++] = names[c];
            }
        }
    return n;
}

int cuplas_sog_prepare(const char *const *names, int C, const int64_t *index, int64_t cells,
                       int sh, int *use, const char **sub, int *n, cuplas_sog_plan *p,
                       cuplas_error *err)
{
    *n = 0;
    if (!names)
        return cuplas_sog_check(NULL, C, index, cells, sh, p, err);
    *n = cuplas_sog_channels(names, C, sh, use, sub);
    return cuplas_sog_check(sub, *n, index, cells, sh, p, err);
}

/* The coefficients of READ_SPLATS splats are made doubles at a time (24
 * MB of scratch at 45), then floats in blocks of CAST_SPLATS a task. */
#define READ_SPLATS 65536
#define CAST_SPLATS 4096

typedef struct cast_task {
    const double *v;   /* len x D doubles: splats s .. s + len */
    int64_t s, len;
    int D;
    float *x;          /* every splat's D floats */
} cast_task;

/* 0, or 1 at a coefficient cuplas_sog_sh_check refuses */
static int cast_block(void *ctx, int64_t b)
{
    const cast_task *t = ctx;
    const int64_t end = cuplas_par_block_end(b, CAST_SPLATS, t->len);
    for (int64_t i = b * CAST_SPLATS; i < end; i++)
        for (int k = 0; k < t->D; k++) {
            const double v = t->v[i * t->D + k];
            if (!cuplas_sog_sh_takes(v))
                return 1;
            t->x[(t->s + i) * t->D + k] = (float)v;
        }
    return 0;
}

int cuplas_sog_read(const cuplas_h5grid *g, const int64_t *row, int64_t cells, const int *use,
                    int n, const cuplas_sog_plan *p, int want_sh, double **head, int *nhead,
                    float **sh, cuplas_pool *pool, cuplas_error *err)
{
    const int D = p->sh.bands ? 3 * p->sh.coeffs : 0, nh = n - D;
    int64_t *ident = NULL;
    double *h = NULL, *v = NULL;
    float *x = NULL;
    int rc = 0, col[CUPLAS_PALETTE_MAX_D];

    *head = NULL, *sh = NULL, *nhead = nh;
    if (!(h = malloc((size_t)cells * (size_t)nh * sizeof *h)))
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory for the SOG images of %lld cells",
                    (long long)cells);
    CUPLAS_TRY(row ? cuplas_h5grid_to_double_rows(g, use, nh, row, cells, h, pool, err)
                   : cuplas_h5grid_to_double(g, use, nh, h, pool, err));
    if (D && want_sh) {
        for (int k = 0; k < D; k++)
            col[k] = use[p->col[k]];
        if (!(x = malloc((size_t)p->count * (size_t)D * sizeof *x)) ||
            !(v = malloc((size_t)READ_SPLATS * (size_t)D * sizeof *v)) ||
            (!row && !(ident = malloc(READ_SPLATS * sizeof *ident))))
            CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory for the SH palette of %lld "
                        "splats", (long long)p->count);
        for (int64_t s = 0; s < p->count; s += READ_SPLATS) {   /* splat s is cell s */
            const int64_t len = p->count - s < READ_SPLATS ? p->count - s : READ_SPLATS;
            for (int64_t i = 0; !row && i < len; i++)
                ident[i] = s + i;
            CUPLAS_TRY(cuplas_h5grid_to_double_rows(g, col, D, row ? row + s : ident, len, v,
                                                    pool, err));
            cast_task ct = {v, s, len, D, x};
            const int64_t nb = cuplas_par_blocks(len, CAST_SPLATS);
            for (int64_t i = cuplas_par_for(pool, nb, cast_block, &ct, NULL) * CAST_SPLATS;
                 i < len; i++)   /* a refused one: name the first */
                for (int k = 0; k < D; k++)
                    CUPLAS_TRY(cuplas_sog_sh_check(v[i * D + k], k, s + i, err));
        }
    }
    *head = h, *sh = x;
    h = NULL, x = NULL;
fail:
    free(ident);
    free(v);
    free(x);
    free(h);
    return rc;
}

static const cuplas_eval_image *image(const cuplas_eval_images *imgs, const char *name)
{
    for (int i = 0; i < imgs->n; i++)
        if (!strcmp(imgs->img[i].name, name))
            return &imgs->img[i];
    return NULL;
}

static void json_array(FILE *f, const double *v, int n)
{
    fputc('[', f);
    for (int i = 0; i < n; i++) {
        fputs(i ? ", " : "", f);
        cuplas_json_write_num(f, v[i]);
    }
    fputc(']', f);
}

/* meta.json of version 2 (the format's spec, section 2). */
static int write_meta(const char *path, int64_t count, const cuplas_eval_images *imgs,
                      const cuplas_sog_sh *sh, cuplas_error *err)
{
    const cuplas_eval_image *m = image(imgs, "means_l"), *s = image(imgs, "scales"),
                            *c = image(imgs, "sh0");
    FILE *f = fopen(path, "w");
    if (!f)
        return cuplas_error_set(err, CUPLAS_ERR_OUTPUT, "cannot create %s: %s", path,
                                strerror(errno));
    fprintf(f, "{\"version\": 2, \"asset\": {\"generator\": \"cuplas %s\"}, \"count\": %lld, "
            "\"antialias\": false,\n \"means\": {\"mins\": ", PACKAGE_VERSION, (long long)count);
    json_array(f, m->lo, 3);
    fputs(", \"maxs\": ", f);
    json_array(f, m->hi, 3);
    fputs(", \"files\": [\"means_l.webp\", \"means_u.webp\"]},\n \"scales\": {\"codebook\": ", f);
    json_array(f, s->codebook, CUPLAS_SCHEME_CODEBOOK);
    fputs(", \"files\": [\"scales.webp\"]},\n \"quats\": {\"files\": [\"quats.webp\"]},\n"
          " \"sh0\": {\"codebook\": ", f);
    json_array(f, c->codebook, CUPLAS_SCHEME_CODEBOOK);
    fputs(", \"files\": [\"sh0.webp\"]}", f);
    if (sh->bands) {
        fprintf(f, ",\n \"shN\": {\"count\": %d, \"bands\": %d, \"codebook\": ", sh->K,
                sh->bands);
        json_array(f, sh->codebook, CUPLAS_SCHEME_CODEBOOK);
        fputs(", \"files\": [\"shN_centroids.webp\", \"shN_labels.webp\"]}", f);
    }
    fputs("}\n", f);
    if (ferror(f) | (fclose(f) != 0))
        return cuplas_error_set(err, CUPLAS_ERR_OUTPUT, "cannot write %s", path);
    return 0;
}

/* One image a task: encoded into its own buffer and written to dir. */
typedef struct encode_job {
    const cuplas_eval_image *img[MAXIMAGES];
    const cuplas_codec_opts *co;
    cuplas_pool *pool;
    const char *dir;
    cuplas_error err[MAXIMAGES];
    int64_t bytes[MAXIMAGES];
    int from, to;   /* the images [from, to) of a call to encode_range */
    int64_t bad;    /* its first failing image, `to` when none          */
} encode_job;

static int encode_one(void *ctx, int64_t k)
{
    encode_job *x = ctx;
    cuplas_buf buf = {0};
    k += x->from;
    cuplas_error_clear(&x->err[k]);
    int rc = cuplas_image_bytes(x->img[k], CUPLAS_CODEC_WEBP, x->co, x->dir, &buf, &x->err[k]);
    x->bytes[k] = (int64_t)buf.size;
    free(buf.data);
    return rc;
}

static void *encode_range(void *ctx)
{
    encode_job *x = ctx;
    x->bad = x->from + cuplas_par_for(x->pool, x->to - x->from, encode_one, x, NULL);
    return NULL;
}

/* The shN images into p->sh (o->reuse's, or a fit); the five attribute
 * images meanwhile on a helper thread when the palette runs on a GPU.
 * job->bad: the first of those five that failed (NIMAGES: none). */
static int palette_and_images(const double *grid, int64_t H, int64_t W, int C,
                              const cuplas_sog_opts *o, const uint8_t *empty,
                              cuplas_sog_plan *p, encode_job *job, cuplas_error *err)
{
    pthread_t helper;
    int rc, started;
    double t = cuplas_now_s();

    job->from = 0, job->to = NIMAGES;
    if (o->reuse && o->reuse->bands == p->sh.bands) {
        if (cuplas_sog_sh_copy(&p->sh, o->reuse) != 0)
            return cuplas_error_set(err, CUPLAS_ERR_NOMEM, "out of memory for the SH images");
        p->reused = 1;
        p->palette_s = cuplas_now_s() - t;
        encode_range(job);
        return 0;
    }
    /* without o->sh_x the coefficients are the grid's: it must hold them */
    for (int k = 0; !o->sh_x && k < 3 * p->sh.coeffs; k++)
        if (p->col[k] >= C)
            return cuplas_error_set(err, CUPLAS_ERR_INTERNAL, "the SOG grid holds %d channels "
                                    "and no f_rest_%d, and no coefficients were given", C, k);
    started = o->device >= 0 && pthread_create(&helper, NULL, encode_range, job) == 0;
    rc = o->sh_x ? cuplas_sog_sh_fit(o->sh_x, H, W, empty, o->palette, o->iterations, o->device,
                                     &p->sh, o->pool, err)
                 : cuplas_sog_sh_encode(grid, H, W, C, p->col, empty, o->palette, o->iterations,
                                        o->device, &p->sh, o->pool, err);
    p->palette_s = cuplas_now_s() - t;
    if (started)
        pthread_join(helper, NULL);
    else if (rc == 0)
        encode_range(job);
    return rc;
}

int cuplas_sog_write(const double *grid, int64_t H, int64_t W, int C, const char *const *names,
                     const cuplas_sog_opts *o, const char *dir, cuplas_sog_plan *p,
                     cuplas_error *err)
{
    const int64_t cells = H * W;
    uint8_t *empty = malloc((size_t)cells);
    cuplas_eval_images imgs = {0};
    encode_job job = {.co = &o->co, .pool = o->pool, .dir = dir};
    int nimg = NIMAGES, rc = 0;
    char *path = NULL;
    double t = cuplas_now_s();

    if (!empty)
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory for a %lldx%lld grid", (long long)H,
                    (long long)W);
    for (int64_t i = 0; i < cells; i++)
        empty[i] = i >= p->count;
    CUPLAS_TRY(cuplas_scheme_encode(CUPLAS_SCHEME_PLAYCANVAS, grid, H, W, C, names, empty,
                                    o->pool, &imgs, err));
    for (int k = 0; k < NIMAGES; k++) {
        const cuplas_eval_image *im = image(&imgs, IMAGES[k]);
        if (!im || (k == 3 && im->channels != 4))
            CUPLAS_FAIL(err, CUPLAS_ERR_INTERNAL, "the playcanvas scheme made no %s image",
                        IMAGES[k]);
        job.img[k] = im;
    }
    p->quantise_s = cuplas_now_s() - t;
    t = cuplas_now_s();
    if (p->sh.bands) {
        CUPLAS_TRY(palette_and_images(grid, H, W, C, o, empty, p, &job, err));
        job.img[nimg++] = &p->sh.centroids;
        job.img[nimg++] = &p->sh.labels;
        job.from = NIMAGES, job.to = nimg;
        if (job.bad == NIMAGES)
            encode_range(&job);
    } else {
        job.from = 0, job.to = nimg;
        encode_range(&job);
    }
    p->webp_s = cuplas_now_s() - t - p->palette_s;
    if (job.bad < job.to) {   /* the first image in order that failed */
        *err = job.err[job.bad];
        rc = (int)err->code;
        goto fail;
    }
    if (asprintf(&path, "%s/meta.json", dir) < 0) {
        path = NULL;
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
    }
    CUPLAS_TRY(write_meta(path, p->count, &imgs, &p->sh, err));
    struct stat st;
    p->bytes = stat(path, &st) == 0 ? (int64_t)st.st_size : 0;
    for (int k = 0; k < nimg; k++)
        p->bytes += job.bytes[k];
    p->files = nimg + 1;
fail:
    cuplas_eval_images_free(&imgs);
    free(path);
    free(empty);
    return rc;
}

void cuplas_sog_plan_free(cuplas_sog_plan *p)
{
    cuplas_sog_sh_free(&p->sh);
}
