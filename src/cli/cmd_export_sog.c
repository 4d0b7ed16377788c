/*
 * cmd_export_sog.c - `cuplas export-sog OUT.h5[:/GROUP] DIR`: a result as
 * PlayCanvas SOG version 2 (meta.json and five lossless WebP images), in
 * its grid order.
 *
 * Design facts: the images are the playcanvas scheme's (eval/schemes.h),
 * the ones `cuplas eval --scheme playcanvas` measures, so what is written
 * is what was measured; their decode information (the positions' log
 * ranges, the two codebooks) becomes meta.json. The format has no holes
 * (only trailing texels are padding), so a grid with an empty cell before
 * its last filled one is refused, as is a result with higher SH bands,
 * whose k-means palette cuplas does not compute, unless --no-sh leaves
 * them out. DIR appears complete or not at all (a temporary folder
 * renamed onto it).
 */
#define _GNU_SOURCE /* asprintf */
#include "cuplas_build.h"
#include "cli/cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "eval/codec.h"
#include "eval/schemes.h"
#include "io/h5_lib.h"
#include "io/h5_result.h"
#include "util/fsutil.h"
#include "util/json.h"
#include "util/pool.h"
#include "util/threads.h"

static const char export_sog_help[] =
    "Usage: cuplas export-sog OUT.h5[:/GROUP] DIR [--no-sh] [--webp-method N]\n"
    "\n"
    "Write the sorted grid of OUT.h5 (a result of `cuplas sort` or `run` on a\n"
    "3DGS scene) as PlayCanvas SOG version 2, the format splat-transform\n"
    "writes and the PlayCanvas engine loads: DIR/meta.json and means_l.webp,\n"
    "means_u.webp, scales.webp, quats.webp, sh0.webp (lossless), the splats\n"
    "in the grid's row-major order: the images `cuplas eval --scheme\n"
    "playcanvas` measures. The result needs the properties x y z f_dc_0..2\n"
    "opacity scale_0..2 rot_0..3 (its channel_names) and a filled grid: empty\n"
    "cells only after the last splat (grid.fit: crop, as\n"
    "configs/playcanvas.yaml does). Other properties are not part of the\n"
    "format and are left out.\n"
    "\n"
    "Options:\n"
    "  --no-sh          leave higher SH bands (f_rest_*) out: SOG stores them\n"
    "                   as labels into a k-means palette, which cuplas does not\n"
    "                   compute, so a result with them is refused without it\n"
    "                   (the view-dependent colour is lost)\n"
    "  --webp-method N  WebP effort 0..6 (default 6, splat-transform's files\n"
    "                   are lossless too; lower is faster, a little larger)\n"
    "  -h, --help       this text\n"
    "\n"
    "DIR must not exist or be an empty folder; it is written under a temporary\n"
    "name and renamed. Exit codes: 0 written; 1 not a readable result, a result\n"
    "the format cannot hold (missing properties, a hole in the grid, SH bands\n"
    "without --no-sh), or DIR cannot be written; 2 usage (bad option, DIR not\n"
    "empty); 3 out of memory.\n";

/* The properties the format needs (by name: any column order). */
static const char *const NEEDED[] = {"x",       "y",       "z",       "f_dc_0", "f_dc_1",
                                     "f_dc_2",  "opacity", "scale_0", "scale_1", "scale_2",
                                     "rot_0",   "rot_1",   "rot_2",   "rot_3"};
#define NNEEDED (int)(sizeof NEEDED / sizeof NEEDED[0])

static const char *const IMAGES[] = {"means_l", "means_u", "scales", "quats", "sh0"};
#define NIMAGES 5

static int find_name(char *const *names, int C, const char *want)
{
    for (int c = 0; names && c < C; c++)
        if (!strcmp(names[c], want))
            return c;
    return -1;
}

/* The result can be written: the properties there, no SH bands (or
 * dropped), no hole. *count: the splats (cells before the first empty). */
static int check_result(const cuplas_h5_result *r, int no_sh, int64_t *count, cuplas_error *err)
{
    const int C = (int)r->sorted.C;
    const int64_t cells = r->sorted.H * r->sorted.W;
    char missing[256] = "";
    size_t at = 0;

    if (!r->names)
        return cuplas_error_set(err, CUPLAS_ERR_INPUT, "no channel_names: the result does not "
                                "say which channel is which 3DGS property");
    for (int k = 0; k < NNEEDED; k++)
        if (find_name(r->names, C, NEEDED[k]) < 0 && at < sizeof missing)
            at += (size_t)snprintf(missing + at, sizeof missing - at, "%s%s", at ? ", " : "",
                                   NEEDED[k]);
    if (at)
        return cuplas_error_set(err, CUPLAS_ERR_INPUT, "PlayCanvas SOG needs the 3DGS "
                                "properties; missing: %s", missing);
    if (!no_sh && find_name(r->names, C, "f_rest_0") >= 0)
        return cuplas_error_set(err, CUPLAS_ERR_INPUT, "has higher SH bands (f_rest_*), whose "
                                "SOG palette cuplas does not compute: --no-sh leaves them out");
    *count = 0;
    while (*count < cells && r->index[*count] >= 0)
        (*count)++;
    for (int64_t i = *count; i < cells; i++)
        if (r->index[i] >= 0)
            return cuplas_error_set(err, CUPLAS_ERR_INPUT, "empty cell %lld lies before the "
                                    "splat in cell %lld: PlayCanvas SOG has no holes (sort with "
                                    "grid.fit: crop, as configs/playcanvas.yaml does)",
                                    (long long)*count, (long long)i);
    if (*count == 0)
        return cuplas_error_set(err, CUPLAS_ERR_INPUT, "no splats");
    return 0;
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
                      cuplas_error *err)
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
    fputs(", \"files\": [\"sh0.webp\"]}}\n", f);
    if (ferror(f) | (fclose(f) != 0))
        return cuplas_error_set(err, CUPLAS_ERR_OUTPUT, "cannot write %s", path);
    return 0;
}

/* One image a task: encoded into its own buffer and written to dir. */
typedef struct encode_job {
    const cuplas_eval_image *img[NIMAGES];
    const cuplas_codec_opts *co;
    const char *dir;
    cuplas_error err[NIMAGES];
} encode_job;

static int encode_one(void *ctx, int64_t k)
{
    encode_job *x = ctx;
    cuplas_buf buf = {0};
    cuplas_error_clear(&x->err[k]);
    int rc = cuplas_image_bytes(x->img[k], CUPLAS_CODEC_WEBP, x->co, x->dir, &buf, &x->err[k]);
    free(buf.data);
    return rc;
}

/* The five images (encoded at once: method 6 takes seconds each, and the
 * bytes do not depend on the threads) and meta.json into dir. */
static int write_sog(const cuplas_h5_result *r, int64_t count, int no_sh,
                     const cuplas_codec_opts *co, const char *dir, cuplas_error *err)
{
    const int C = (int)r->sorted.C;
    const int64_t cells = r->sorted.H * r->sorted.W;
    int *use = malloc((size_t)C * sizeof *use), rc = 0;
    double *grid = malloc((size_t)cells * (size_t)C * sizeof *grid);
    uint8_t *empty = malloc((size_t)cells);
    char **names = calloc((size_t)C, sizeof *names);
    cuplas_eval_images imgs = {0};
    encode_job job = {.co = co, .dir = dir};
    char *path = NULL;

    if (!use || !grid || !empty || !names)
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory for a %lldx%lldx%d result",
                    (long long)r->sorted.H, (long long)r->sorted.W, C);
    for (int c = 0; c < C; c++) {
        use[c] = c;
        /* with --no-sh the bands are not the scheme's to image */
        names[c] = no_sh && !strncmp(r->names[c], "f_rest_", 7) ? "" : r->names[c];
    }
    for (int64_t i = 0; i < cells; i++)
        empty[i] = i >= count;
    CUPLAS_TRY(cuplas_h5grid_to_double(&r->sorted, use, C, grid, NULL, err));
    CUPLAS_TRY(cuplas_scheme_encode(CUPLAS_SCHEME_PLAYCANVAS, grid, r->sorted.H, r->sorted.W, C,
                                    (const char *const *)names, empty, &imgs, err));
    for (int k = 0; k < NIMAGES; k++) {
        const cuplas_eval_image *im = image(&imgs, IMAGES[k]);
        if (!im || (k == 3 && im->channels != 4))
            CUPLAS_FAIL(err, CUPLAS_ERR_INTERNAL, "the playcanvas scheme made no %s image",
                        IMAGES[k]);
        job.img[k] = im;
    }
    int64_t bad = cuplas_par_for(NULL, NIMAGES, encode_one, &job, NULL);
    if (bad < NIMAGES) {   /* the first image in order that failed */
        *err = job.err[bad];
        rc = (int)err->code;
        goto fail;
    }
    if (asprintf(&path, "%s/meta.json", dir) < 0) {
        path = NULL;
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
    }
    CUPLAS_TRY(write_meta(path, count, &imgs, err));
fail:
    cuplas_eval_images_free(&imgs);
    free(path);
    free(names);
    free(empty);
    free(grid);
    free(use);
    return rc;
}

static int cmd_export_sog(int argc, char **argv)
{
    static const struct option opts[] = {
        {"no-sh", no_argument, NULL, 'n'},
        {"webp-method", required_argument, NULL, 'w'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    cuplas_h5_result r = {0};
    cuplas_codec_opts co;
    cuplas_error err;
    char *file = NULL, *group = NULL, *tmpdir = NULL;
    const char *dir;
    int no_sh = 0, c, rc = 0;
    int64_t count = 0;
    long long v;
    struct stat st;

    cuplas_error_clear(&err);
    cuplas_codec_opts_default(&co);
    co.threads = cuplas_max_threads();   /* libwebp's second thread: the same bytes */
    optind = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case 'h':
            fputs(export_sog_help, stdout);
            return CUPLAS_EXIT_OK;
        case 'n': no_sh = 1; break;
        case 'w':
            if (cuplas_cli_int(optarg, 0, 6, &v) != 0)
                return cuplas_cli_usage("export-sog", "--webp-method wants an integer in [0, 6], "
                                        "got '%s'", optarg);
            co.webp_method = (int)v;
            break;
        default:
            return cuplas_cli_bad_option("export-sog", c, argv);
        }
    }
    if (optind != argc - 2)
        return cuplas_cli_usage("export-sog", "expected OUT.h5[:/GROUP] DIR");
    dir = argv[optind + 1];
    if (stat(dir, &st) == 0 && (!S_ISDIR(st.st_mode) || rmdir(dir) != 0))
        return cuplas_cli_usage("export-sog", "%s: exists and is not an empty folder", dir);
    if (cuplas_cli_split_spec(argv[optind], &file, &group) != 0)
        CUPLAS_FAIL(&err, CUPLAS_ERR_NOMEM, "out of memory");
    cuplas_h5_quiet();
    if (cuplas_h5_result_read(file, group, &r, &err) != 0 ||
        check_result(&r, no_sh, &count, &err) != 0) {
        rc = (int)err.code;
        cuplas_error_where(&err, "%s%s%s", file, r.group ? ":" : "", r.group ? r.group : "");
        goto fail;
    }
    if (asprintf(&tmpdir, "%s.tmp.%ld", dir, (long)getpid()) < 0) {
        tmpdir = NULL;
        CUPLAS_FAIL(&err, CUPLAS_ERR_NOMEM, "out of memory");
    }
    CUPLAS_TRY(cuplas_mkdir_p(tmpdir, &err));
    CUPLAS_TRY(write_sog(&r, count, no_sh, &co, tmpdir, &err));
    if (rename(tmpdir, dir) != 0)
        CUPLAS_FAIL(&err, CUPLAS_ERR_OUTPUT, "cannot rename %s to %s: %s", tmpdir, dir,
                    strerror(errno));
    printf("cuplas export-sog: %lld splats on a %lldx%lld texture -> %s\n", (long long)count,
           (long long)r.sorted.W, (long long)r.sorted.H, dir);
fail:
    if (rc && tmpdir)
        cuplas_rm_tree(tmpdir);
    free(tmpdir);
    free(file);
    free(group);
    cuplas_h5_result_free(&r);
    return rc ? cuplas_cli_fail(&err) : CUPLAS_EXIT_OK;
}

const cuplas_cmd cuplas_cmd_export_sog_def = {
    "export-sog", cmd_export_sog, "write a result as PlayCanvas SOG (meta.json + WebP images)",
    export_sog_help, 0,
};
