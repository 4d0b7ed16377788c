/*
 * cmd_export_sog.c - `cuplas export-sog OUT.h5[:/GROUP] DIR`: a result as
 * PlayCanvas SOG version 2 (meta.json and five lossless WebP images), in
 * its grid order.
 *
 * Design facts: the images are the playcanvas scheme's (eval/schemes.h),
 * the ones `cuplas eval --scheme playcanvas` measures, so what is written
 * is what was measured; their decode information (the positions' log
 * ranges, the two codebooks) becomes meta.json. Higher SH bands become
 * the shN palette and labels (eval/sog_sh.c; k-means on a GPU when
 * there is one). The format has no holes (only trailing texels are
 * padding), so a grid with an empty cell before its last filled one is
 * refused. DIR appears complete or not at all (a temporary folder renamed
 * onto it).
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

#include "eval/sog_sh.h"
#include "core/channel_names.h"
#include "eval/codec.h"
#include "eval/schemes.h"
#include "io/h5_lib.h"
#include "io/h5_result.h"
#include "util/fsutil.h"
#include "util/json.h"
#include "util/pool.h"
#include "util/threads.h"

static const char export_sog_help[] =
    "Usage: cuplas export-sog OUT.h5[:/GROUP] DIR [--no-sh] [--sh-palette K]\n"
    "         [--sh-iterations N] [--backend auto|cpu|gpu] [--gpu ID] [--webp-method N]\n"
    "\n"
    "Write the sorted grid of OUT.h5 (a result of `cuplas sort` or `run` on a\n"
    "3DGS scene) as PlayCanvas SOG version 2, the format splat-transform\n"
    "writes and the PlayCanvas engine loads: DIR/meta.json and means_l.webp,\n"
    "means_u.webp, scales.webp, quats.webp, sh0.webp (lossless), the splats\n"
    "in the grid's row-major order: the images `cuplas eval --scheme\n"
    "playcanvas` measures. Higher SH bands (f_rest_*: 9, 24 or 45 of them)\n"
    "add shN_centroids.webp, a k-means palette of the bands, and\n"
    "shN_labels.webp, each splat's entry. The result needs the properties\n"
    "x y z f_dc_0..2 opacity scale_0..2 rot_0..3 (its channel_names) and a\n"
    "filled grid: empty cells only after the last splat (grid.fit: crop, as\n"
    "configs/playcanvas.yaml does). Other properties are not part of the\n"
    "format and are left out.\n"
    "\n"
    "Options:\n"
    "  --no-sh            leave the higher SH bands out (the view-dependent\n"
    "                     colour is lost; no k-means)\n"
    "  --sh-palette K     palette entries, 1..65536 (default: splat-transform's\n"
    "                     1024 x 2^floor(log2(N / 1024)), at most 65536, for N\n"
    "                     splats; never more than N)\n"
    "  --sh-iterations N  k-means updates, 0..1000 (default 10; it stops early\n"
    "                     once no label moves)\n"
    "  --backend B        where the k-means runs: auto (a GPU when there is\n"
    "                     one, default), cpu or gpu; the same palette on each\n"
    "  --gpu ID           use this CUDA device (implies --backend gpu)\n"
    "  --webp-method N    WebP effort 0..6 (default 6, splat-transform's files\n"
    "                     are lossless too; lower is faster, a little larger)\n"
    "  -h, --help         this text\n"
    "\n"
    "DIR must not exist or be an empty folder; it is written under a temporary\n"
    "name and renamed. Exit codes: 0 written; 1 not a readable result, a result\n"
    "the format cannot hold (missing properties, a hole in the grid, f_rest_*\n"
    "channels that are not whole SH bands, an SH coefficient beyond +-1e18), or\n"
    "DIR cannot be written; 2 usage (bad option, DIR not empty); 3 out of\n"
    "memory, a CUDA error, or --backend gpu without a usable GPU.\n";

/* The properties the format needs (by name: any column order). */
static const char *const NEEDED[] = {"x",       "y",       "z",       "f_dc_0", "f_dc_1",
                                     "f_dc_2",  "opacity", "scale_0", "scale_1", "scale_2",
                                     "rot_0",   "rot_1",   "rot_2",   "rot_3"};
#define NNEEDED (int)(sizeof NEEDED / sizeof NEEDED[0])

static const char *const IMAGES[] = {"means_l", "means_u", "scales", "quats", "sh0"};
#define NIMAGES 5
#define MAXIMAGES (NIMAGES + 2) /* and shN_centroids, shN_labels */

/* What the command line asks for. */
typedef struct export_opts {
    int no_sh, device; /* device: -1 CPU */
    cuplas_cli_palette pal;
    cuplas_codec_opts co;
} export_opts;

/* The result can be written: the properties there, whole SH bands (or
 * none, or dropped), no hole. *count: the splats (cells before the first
 * empty); sh->bands and col[]: cuplas_sog_sh_bands. */
static int check_result(const cuplas_h5_result *r, int no_sh, int64_t *count, cuplas_sog_sh *sh,
                        int *col, cuplas_error *err)
{
    const int C = (int)r->sorted.C;
    const int64_t cells = r->sorted.H * r->sorted.W;
    char missing[256] = "";
    size_t at = 0;

    if (!r->names)
        return cuplas_error_set(err, CUPLAS_ERR_INPUT, "no channel_names: the result does not "
                                "say which channel is which 3DGS property");
    for (int k = 0; k < NNEEDED; k++)
        if (cuplas_channel_index((const char *const *)r->names, C, NEEDED[k]) < 0 && at < sizeof missing)
            at += (size_t)snprintf(missing + at, sizeof missing - at, "%s%s", at ? ", " : "",
                                   NEEDED[k]);
    if (at)
        return cuplas_error_set(err, CUPLAS_ERR_INPUT, "PlayCanvas SOG needs the 3DGS "
                                "properties; missing: %s", missing);
    if (!no_sh && cuplas_sog_sh_bands((const char *const *)r->names, C, sh, col, err) != 0)
        return (int)err->code;
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
    const char *dir;
    cuplas_error err[MAXIMAGES];
    int64_t bytes[MAXIMAGES];
} encode_job;

static int encode_one(void *ctx, int64_t k)
{
    encode_job *x = ctx;
    cuplas_buf buf = {0};
    cuplas_error_clear(&x->err[k]);
    int rc = cuplas_image_bytes(x->img[k], CUPLAS_CODEC_WEBP, x->co, x->dir, &buf, &x->err[k]);
    x->bytes[k] = (int64_t)buf.size;
    free(buf.data);
    return rc;
}

/* The five images, the SH palette's two when sh->bands (encoded at once:
 * method 6 takes seconds each, and the bytes do not depend on the
 * threads), and meta.json into dir; *files and *bytes: what was written. */
static int write_sog(const cuplas_h5_result *r, int64_t count, const export_opts *o,
                     cuplas_sog_sh *sh, const int *col, const char *dir, int *files,
                     int64_t *bytes, cuplas_error *err)
{
    const int C = (int)r->sorted.C;
    const int64_t cells = r->sorted.H * r->sorted.W;
    int *use = malloc((size_t)C * sizeof *use), rc = 0;
    double *grid = malloc((size_t)cells * (size_t)C * sizeof *grid);
    uint8_t *empty = malloc((size_t)cells);
    cuplas_eval_images imgs = {0};
    encode_job job = {.co = &o->co, .dir = dir};
    int nimg = NIMAGES;
    char *path = NULL;

    if (!use || !grid || !empty)
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory for a %lldx%lldx%d result",
                    (long long)r->sorted.H, (long long)r->sorted.W, C);
    for (int c = 0; c < C; c++)
        use[c] = c;
    for (int64_t i = 0; i < cells; i++)
        empty[i] = i >= count;
    CUPLAS_TRY(cuplas_h5grid_to_double(&r->sorted, use, C, grid, NULL, err));
    CUPLAS_TRY(cuplas_scheme_encode(CUPLAS_SCHEME_PLAYCANVAS, grid, r->sorted.H, r->sorted.W, C,
                                    (const char *const *)r->names, empty, &imgs, err));
    for (int k = 0; k < NIMAGES; k++) {
        const cuplas_eval_image *im = image(&imgs, IMAGES[k]);
        if (!im || (k == 3 && im->channels != 4))
            CUPLAS_FAIL(err, CUPLAS_ERR_INTERNAL, "the playcanvas scheme made no %s image",
                        IMAGES[k]);
        job.img[k] = im;
    }
    if (sh->bands) {
        CUPLAS_TRY(cuplas_sog_sh_encode(grid, r->sorted.H, r->sorted.W, C, col, empty, o->pal.K,
                                        o->pal.iterations, o->device, sh, err));
        job.img[nimg++] = &sh->centroids;
        job.img[nimg++] = &sh->labels;
    }
    int64_t bad = cuplas_par_for(NULL, nimg, encode_one, &job, NULL);
    if (bad < nimg) {   /* the first image in order that failed */
        *err = job.err[bad];
        rc = (int)err->code;
        goto fail;
    }
    if (asprintf(&path, "%s/meta.json", dir) < 0) {
        path = NULL;
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
    }
    CUPLAS_TRY(write_meta(path, count, &imgs, sh, err));
    struct stat st;
    *bytes = stat(path, &st) == 0 ? (int64_t)st.st_size : 0;
    for (int k = 0; k < nimg; k++)
        *bytes += job.bytes[k];
    *files = nimg + 1;
fail:
    cuplas_eval_images_free(&imgs);
    free(path);
    free(empty);
    free(grid);
    free(use);
    return rc;
}

static int cmd_export_sog(int argc, char **argv)
{
    static const struct option opts[] = {
        {"no-sh", no_argument, NULL, 'n'},
        CUPLAS_CLI_PALETTE_OPTIONS,
        {"webp-method", required_argument, NULL, 'w'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    cuplas_h5_result r = {0};
    export_opts o = {.device = -1};
    cuplas_sog_sh sh = {0};
    cuplas_error err;
    char *file = NULL, *group = NULL, *tmpdir = NULL;
    const char *dir;
    int c, rc = 0, col[CUPLAS_PALETTE_MAX_D], files = 0;
    int64_t count = 0, bytes = 0;
    long long v;
    struct stat st;

    cuplas_error_clear(&err);
    cuplas_cli_palette_init(&o.pal);
    cuplas_codec_opts_default(&o.co);
    o.co.threads = cuplas_max_threads();   /* libwebp's second thread: the same bytes */
    optind = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case 'h':
            fputs(export_sog_help, stdout);
            return CUPLAS_EXIT_OK;
        case 'n': o.no_sh = 1; break;
        case 'w':
            if (cuplas_cli_int(optarg, 0, 6, &v) != 0)
                return cuplas_cli_usage("export-sog", "--webp-method wants an integer in [0, 6], "
                                        "got '%s'", optarg);
            o.co.webp_method = (int)v;
            break;
        default: {
            int took = cuplas_cli_palette_option("export-sog", c, optarg, &o.pal);
            if (took < 0)
                return CUPLAS_EXIT_USAGE;
            if (!took)
                return cuplas_cli_bad_option("export-sog", c, argv);
        }
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
        check_result(&r, o.no_sh, &count, &sh, col, &err) != 0) {
        rc = (int)err.code;
        cuplas_error_where(&err, "%s%s%s", file, r.group ? ":" : "", r.group ? r.group : "");
        goto fail;
    }
    if (sh.bands)
        CUPLAS_TRY(cuplas_cli_palette_device(&o.pal, &o.device, &err));
    if (!(tmpdir = cuplas_dir_tmp_name(dir)))
        CUPLAS_FAIL(&err, CUPLAS_ERR_NOMEM, "out of memory");
    CUPLAS_TRY(cuplas_mkdir_p(tmpdir, &err));
    if (write_sog(&r, count, &o, &sh, col, tmpdir, &files, &bytes, &err) != 0) {
        rc = (int)err.code;
        cuplas_error_where(&err, "%s%s%s", file, r.group ? ":" : "", r.group ? r.group : "");
        goto fail;
    }
    CUPLAS_TRY(cuplas_dir_publish(tmpdir, dir, &err));
    printf("cuplas export-sog: %lld splats on a %lldx%lld texture -> %s (%d files, %lld "
           "bytes)\n", (long long)count, (long long)r.sorted.W, (long long)r.sorted.H, dir, files,
           (long long)bytes);
    if (sh.bands)
        printf("cuplas export-sog: SH bands %d: a palette of %d entries, %d k-means updates "
               "(%lld labels moved by the last), mean squared error %.4g, assignment %.2f s "
               "on %s\n", sh.bands, sh.K, sh.st.updates, (long long)sh.st.moved, sh.st.mse,
               sh.st.assign_s, o.device < 0 ? "the CPU" : "the GPU");
fail:
    if (rc && tmpdir)
        cuplas_rm_tree(tmpdir);
    free(tmpdir);
    free(file);
    free(group);
    cuplas_sog_sh_free(&sh);
    cuplas_h5_result_free(&r);
    return rc ? cuplas_cli_fail(&err) : CUPLAS_EXIT_OK;
}

const cuplas_cmd cuplas_cmd_export_sog_def = {
    "export-sog", cmd_export_sog, "write a result as PlayCanvas SOG (meta.json + WebP images)",
    export_sog_help, 0,
};
