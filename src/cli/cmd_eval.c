/*
 * cmd_eval.c - `cuplas eval` (what sorting buys: metrics and compressed
 * bytes against baselines) and `cuplas preview` (input and sorted side
 * by side in a PNG), both on a finished result.
 *
 * Design facts: both only read the result (h5_result.h), rebuild the
 * input order from its index (sorted[cell] = input[index[cell]]) and hand
 * the rest to the eval layer, so `run`'s eval step (pipeline/stage_eval.c)
 * measures the same way on the grid it already holds. Nothing partial is
 * left behind: the preview is published by rename, --images goes to a
 * temporary folder renamed onto DIR at the end.
 */
#define _GNU_SOURCE /* strndup, asprintf */
#include "cli/cli.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/channel_names.h"
#include "eval/codec.h"
#include "eval/evaluate.h"
#include "eval/preview.h"
#include "io/dtype.h"
#include "io/h5_lib.h"
#include "io/h5_result.h"
#include "io/ply.h"
#include "io/publish.h"
#include "util/fsutil.h"

static const char eval_help[] =
    "Usage: cuplas eval FILE.h5[:/GROUP] [options]\n"
    "\n"
    "Measure a result of `cuplas run` or `cuplas sort` against baselines: the\n"
    "sorted grid and three other orders of the same items on the same grid\n"
    "(input: the file order; random: a seeded shuffle; morton: Z-order of the\n"
    "channels named x, y, z, else of the first three principal components).\n"
    "For each order: AND and VAD (lower is better), DPQ_p (exact up to 4096\n"
    "items, else not computed; higher is better), and the bytes of its\n"
    "channels quantised to 8-bit images by the scheme and encoded losslessly\n"
    "by each codec. Values are the result's own (not normalised); empty grid\n"
    "cells are left out of the metrics and coded 0 in the images. GROUP may\n"
    "be left out when FILE.h5 holds one result.\n"
    "\n"
    "Options:\n"
    "  --json              print one JSON object (README \"Evaluating a\n"
    "                      result\" documents its keys) instead of the table\n"
    "  --images DIR        also write the measured files: DIR/ORDER/NAME.EXT;\n"
    "                      their sizes add up to the reported bytes. DIR must\n"
    "                      not exist or be empty\n"
    "  --codecs LIST       png,webp,jxl or a part of it, each once (default\n"
    "                      png,webp)\n"
    "  --orders LIST       the orders measured: sorted,input,random,morton or a\n"
    "                      part of it (default all four); sorted always is, so\n"
    "                      --orders morton measures sorted and morton. The\n"
    "                      others cost nothing and are left out of the output\n"
    "  --scheme NAME       plain (default: each channel to 8 bits over its\n"
    "                      range), sog (Self-Organizing Gaussians), gsplat or\n"
    "                      playcanvas (PlayCanvas SOG v2); those three need\n"
    "                      channels x, y, z, ...\n"
    "  --dpq-p P           the p of DPQ_p (default 16)\n"
    "  --seed N            seed of the random order (default 0)\n"
    "  --webp-method N     WebP effort 0..6, the same for every order (default\n"
    "                      6: several times slower than 4, mostly the smallest\n"
    "                      files, but not always: a Morton order's can be\n"
    "                      smallest at 2 or 3)\n"
    "  --names LIST        channel names, comma-separated, one per channel, for\n"
    "                      a result without a channel_names attribute (e.g.\n"
    "                      x,y,z,f_dc_0,... for the 3DGS schemes); they replace\n"
    "                      the file's own\n"
    "  -h, --help          this text\n"
    "\n"
    "The playcanvas scheme codes f_rest_* (1, 2 or 3 whole SH bands) as the\n"
    "format does: a k-means palette of the bands and a 16-bit label a splat\n"
    "(shN_centroids, shN_labels), fitted for each order measured as\n"
    "`cuplas export-sog` would fit it for a grid in that order:\n"
    "  --sh-palette K      palette entries, 1..65536 (default: splat-transform's\n"
    "                      size for the items, at most 65536)\n"
    "  --sh-iterations N   k-means updates, 0..1000 (default 10)\n"
    "  --backend B         where the k-means runs: auto (a GPU when there is\n"
    "                      one, default), cpu or gpu; the same bytes on each\n"
    "  --gpu ID            use this CUDA device (implies --backend gpu)\n"
    "\n"
    "Exit codes (eval, preview):\n"
    "  0   done\n"
    "  1   the file is not a readable result, an output cannot be written, or\n"
    "      (playcanvas) f_rest_* that are not whole SH bands or hold a value\n"
    "      beyond +-1e18\n"
    "  2   usage error (bad option; a scheme the result's channels do not fit;\n"
    "      --images DIR not empty)\n"
    "  3   out of memory; a CUDA error, or --backend gpu without a usable GPU\n";

static const char preview_help[] =
    "Usage: cuplas preview FILE.h5[:/GROUP] OUT.png [options]\n"
    "\n"
    "Write a PNG of the input order (left) and the sorted grid (right) side\n"
    "by side: three channels as red, green, blue (one channel: gray), each\n"
    "mapped to 0..255 over its 1st to 99th percentile (the same for both\n"
    "panels); grids larger than --max-side shrunk by a box filter; empty\n"
    "cells dark gray. OUT.png is published by rename (never half-written).\n"
    "\n"
    "Options:\n"
    "  --channels LIST     one to three channel indices (default 0,1,2)\n"
    "  --max-side N        largest side of the image in pixels (default 1024)\n"
    "  -h, --help          this text\n"
    "\n"
    "Exit codes: as for `cuplas eval` (cuplas help eval).\n";

/* A result as the eval layer wants it: items in input order, the map. */
typedef struct loaded {
    cuplas_h5_result r;
    double *items;
    int64_t N;
} loaded;

static void loaded_free(loaded *l)
{
    cuplas_h5_result_free(&l->r);
    free(l->items);
}

/* "a,b,c" -> malloc'd names; NULL when out of memory. */
static char **split_names(const char *list, int *n)
{
    char **v = calloc(strlen(list) + 1, sizeof *v);
    const char *s = list;
    *n = 0;
    if (!v)
        return NULL;
    for (;;) {
        size_t len = strcspn(s, ",");
        if (!(v[*n] = strndup(s, len))) {
            /* the caller frees names[0..*n) only when names is not NULL */
            while (*n > 0)
                free(v[--*n]);
            free(v);
            return NULL;
        }
        (*n)++;
        if (!s[len])
            break;
        s += len + 1;
    }
    return v;
}

static int load(const char *spec, loaded *l, cuplas_error *err)
{
    char *file = NULL, *group = NULL;
    double *grid = NULL;
    int *use = NULL, rc = 0;

    memset(l, 0, sizeof *l);
    if (cuplas_cli_split_spec(spec, &file, &group) != 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
    if (cuplas_h5_result_read(file, group, &l->r, err) != 0) {
        /* `cuplas eval scene.ply`: the scene is what sort reads, not a result */
        if (err->reason == CUPLAS_REASON_NOT_HDF5 && cuplas_ply_is_scene_path(file)) {
            cuplas_error_clear(err);   /* the first error is kept: replace it */
            cuplas_error_set(err, CUPLAS_ERR_INPUT, "a 3DGS scene, not a cuplas result: eval and "
                             "preview read what sort and run write (cuplas sort SCENE OUT.h5 "
                             "first)");
            cuplas_error_where(err, "%s", file);
        }
        rc = (int)err->code;
        goto fail;
    }
    const cuplas_h5grid *g = &l->r.sorted;
    size_t cells = (size_t)(g->H * g->W);
    if (!(use = malloc((size_t)g->C * sizeof *use)) ||
        !(grid = malloc(cells * (size_t)g->C * sizeof *grid)) ||
        !(l->items = malloc(cells * (size_t)g->C * sizeof *l->items)))
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory for a %lldx%lldx%lld result",
                    (long long)g->H, (long long)g->W, (long long)g->C);
    for (int c = 0; c < (int)g->C; c++)
        use[c] = c;
    if (cuplas_h5grid_to_double(g, use, (int)g->C, grid, NULL, err) != 0 ||
        cuplas_eval_unsort(grid, l->r.index, (int64_t)cells, (int)g->C, l->items, &l->N, err) != 0) {
        rc = (int)err->code;
        cuplas_error_where(err, "%s:%s", file, l->r.group);
    }
fail:
    free(file);
    free(group);
    free(grid);
    free(use);
    if (rc)
        loaded_free(l);
    return rc;
}

/* DIR for --images: absent, or an empty folder (removed: the temporary
 * folder is renamed onto it). 0 or a usage error. */
static int images_target(const char *dir, cuplas_error *err)
{
    struct stat st;
    if (stat(dir, &st) != 0)
        return 0;
    if (!S_ISDIR(st.st_mode) || rmdir(dir) != 0)
        return cuplas_error_set(err, CUPLAS_ERR_USAGE, "--images %s: exists and is not an empty "
                                "folder", dir);
    return 0;
}

static int cmd_eval(int argc, char **argv)
{
    static const struct option opts[] = {
        {"json", no_argument, NULL, 'j'},       {"images", required_argument, NULL, 'i'},
        {"codecs", required_argument, NULL, 'c'}, {"scheme", required_argument, NULL, 's'},
        {"dpq-p", required_argument, NULL, 'p'},  {"seed", required_argument, NULL, 'S'},
        {"names", required_argument, NULL, 'n'},  {"webp-method", required_argument, NULL, 'w'},
        {"orders", required_argument, NULL, 'o'}, {"help", no_argument, NULL, 'h'},
        CUPLAS_CLI_PALETTE_OPTIONS,               {NULL, 0, NULL, 0},
    };
    cuplas_cli_palette pal;
    cuplas_eval_opts o;
    cuplas_eval_result res;
    cuplas_error err;
    loaded l = {0};
    const char *images = NULL, *names_arg = NULL;
    char *tmpdir = NULL, **names = NULL;
    int nnames = 0;
    int json = 0, c, rc = 0, have = 0;
    long long v;

    cuplas_error_clear(&err);
    cuplas_eval_opts_default(&o);
    cuplas_cli_palette_init(&pal);
    o.per_image = 1;
    optind = 0;
    opterr = 0; /* cuplas_cli_bad_option says it, in one line */
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case 'h':
            fputs(eval_help, stdout);
            return CUPLAS_EXIT_OK;
        case 'j': json = 1; break;
        case 'i': images = optarg; break;
        case 'n': names_arg = optarg; break;
        case 'c':
            if (cuplas_eval_parse_codecs(optarg, &o.codecs, &err) != 0)
                return cuplas_cli_usage("eval", "--codecs: %s", err.msg);
            break;
        case 's':
            if (cuplas_scheme_parse(optarg, &o.scheme, &err) != 0)
                return cuplas_cli_usage("eval", "%s", err.msg);
            break;
        case 'o':
            if (cuplas_eval_parse_orders(optarg, &o.orders, &err) != 0)
                return cuplas_cli_usage("eval", "--orders: %s", err.msg);
            break;
        case 'p': {
            char *end;
            o.dpq_p = strtod(optarg, &end);
            if (*end || !(o.dpq_p >= 1 && o.dpq_p <= 1e6))
                return cuplas_cli_usage("eval", "--dpq-p wants a number >= 1, got '%s'", optarg);
            break;
        }
        case 'w':
            if (cuplas_cli_int(optarg, 0, 6, &v) != 0)
                return cuplas_cli_usage("eval", "--webp-method wants an integer in [0, 6], got "
                                        "'%s'", optarg);
            o.codec.webp_method = (int)v;
            break;
        case 'S':
            if (cuplas_cli_int(optarg, 0, INT64_MAX, &v) != 0)
                return cuplas_cli_usage("eval", "--seed wants an integer >= 0, got '%s'", optarg);
            o.seed = (uint64_t)v;
            break;
        default: {   /* the SH palette's options, or an unknown one */
            int bad = cuplas_cli_palette_option("eval", c, optarg, argv, &pal);
            if (bad)
                return bad;
        }
        }
    }
    if (optind != argc - 1)
        return cuplas_cli_usage("eval", "expected one FILE.h5[:/GROUP]");
    o.sh_palette = pal.K;
    o.sh_iterations = pal.iterations;
    cuplas_h5_quiet();
    if (images) {
        CUPLAS_TRY(images_target(images, &err));
        if (!(tmpdir = cuplas_dir_tmp_name(images)))
            CUPLAS_FAIL(&err, CUPLAS_ERR_NOMEM, "out of memory");
        CUPLAS_TRY(cuplas_mkdir_p(tmpdir, &err));
        o.images_dir = tmpdir;
    }
    CUPLAS_TRY(load(argv[optind], &l, &err));
    have = 1;
    if (names_arg) {
        if (!(names = split_names(names_arg, &nnames)))
            CUPLAS_FAIL(&err, CUPLAS_ERR_NOMEM, "out of memory");
        if (nnames != (int)l.r.sorted.C)
            CUPLAS_FAIL(&err, CUPLAS_ERR_USAGE, "--names: %d names for %lld channels", nnames,
                        (long long)l.r.sorted.C);
    }
    const char *const *chn = (const char *const *)(names ? names : l.r.names);
    /* auto starts the driver only for an SH palette; a GPU named is checked */
    CUPLAS_TRY(cuplas_cli_palette_device(&pal, o.scheme == CUPLAS_SCHEME_PLAYCANVAS && chn &&
                                         cuplas_channel_index(chn, (int)l.r.sorted.C,
                                                              "f_rest_0") >= 0,
                                         argv[optind], &o.sh_device, &err));
    if ((rc = cuplas_evaluate(l.items, l.N, (int)l.r.sorted.C, chn,
                              l.r.index, l.r.sorted.H, l.r.sorted.W, &o, &res, &err)) != 0) {
        cuplas_error_where(&err, "%s", argv[optind]);
        goto fail;
    }
    if (tmpdir)
        CUPLAS_TRY(cuplas_dir_publish(tmpdir, images, &err));
    if (json) {
        cuplas_eval_result_json(stdout, &res);
        fputc('\n', stdout);
    } else {
        printf("cuplas eval: %s\n", argv[optind]);
        cuplas_eval_result_print(stdout, &res);
    }
    if (fflush(stdout) != 0)
        CUPLAS_FAIL(&err, CUPLAS_ERR_OUTPUT, "cannot write the standard output");
fail:
    if (rc && tmpdir)
        cuplas_rm_tree(tmpdir);
    free(tmpdir);
    for (int i = 0; i < nnames; i++)
        free(names[i]);
    free(names);
    if (have)
        loaded_free(&l);
    return rc ? cuplas_cli_fail(&err) : CUPLAS_EXIT_OK;
}

static int cmd_preview(int argc, char **argv)
{
    static const struct option opts[] = {
        {"channels", required_argument, NULL, 'c'},
        {"max-side", required_argument, NULL, 'm'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    cuplas_preview_opts o;
    cuplas_eval_image img = {0};
    cuplas_buf png = {NULL, 0, 0};
    cuplas_error err;
    loaded l = {0};
    int c, rc = 0, have = 0;
    long long v;

    cuplas_error_clear(&err);
    cuplas_preview_opts_default(&o);
    optind = 0;
    opterr = 0; /* cuplas_cli_bad_option says it, in one line */
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case 'h':
            fputs(preview_help, stdout);
            return CUPLAS_EXIT_OK;
        case 'c':
            if (cuplas_preview_parse_channels(optarg, &o, &err) != 0)
                return cuplas_cli_usage("preview", "%s", err.msg);
            break;
        case 'm':
            if (cuplas_cli_int(optarg, 16, 16384, &v) != 0)
                return cuplas_cli_usage("preview", "--max-side wants 16..16384, got '%s'", optarg);
            o.max_side = (int)v;
            break;
        default:
            return cuplas_cli_bad_option("preview", c, argv);
        }
    }
    if (optind != argc - 2)
        return cuplas_cli_usage("preview", "expected FILE.h5[:/GROUP] OUT.png");
    cuplas_h5_quiet();
    CUPLAS_TRY(load(argv[optind], &l, &err));
    have = 1;
    if ((rc = cuplas_preview_build(l.items, l.N, (int)l.r.sorted.C, l.r.index, l.r.sorted.H,
                                   l.r.sorted.W, &o, &img, &err)) != 0) {
        cuplas_error_where(&err, "%s", argv[optind]);
        goto fail;
    }
    CUPLAS_TRY(cuplas_image_encode(CUPLAS_CODEC_PNG, &img, NULL, &png, &err));
    CUPLAS_TRY(cuplas_publish_bytes(argv[optind + 1], png.data, png.size, 0, &err));
    printf("wrote %s: %lldx%lld (input | sorted)\n", argv[optind + 1], (long long)img.W,
           (long long)img.H);
fail:
    free(img.px);
    free(png.data);
    if (have)
        loaded_free(&l);
    return rc ? cuplas_cli_fail(&err) : CUPLAS_EXIT_OK;
}

const cuplas_cmd cuplas_cmd_eval_def = {
    "eval", cmd_eval, "compressed bytes and quality of a result against baseline orders",
    eval_help, 0,
};

const cuplas_cmd cuplas_cmd_preview_def = {
    "preview", cmd_preview, "a PNG of a result's input order and sorted grid side by side",
    preview_help, 0,
};
