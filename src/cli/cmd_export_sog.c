/*
 * cmd_export_sog.c - `cuplas export-sog OUT.h5[:/GROUP] DIR`: a result as
 * PlayCanvas SOG version 2 (meta.json and five lossless WebP images, seven
 * with higher SH bands), in its grid order: io/sog_write.h writes them, as
 * run's `sog` step does. DIR appears complete or not at all (a temporary
 * folder renamed onto it). The result is checked as export-ply checks it
 * (h5_result.h): an index that places a row twice, or loses one, would
 * be written as splats all the same.
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

#include "io/dtype.h"
#include "io/h5_lib.h"
#include "io/h5_result.h"
#include "io/sog_write.h"
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

/* What the command line asks for. */
typedef struct export_opts {
    int no_sh;
    cuplas_cli_palette pal;
    cuplas_sog_opts so;
} export_opts;

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
    export_opts o = {0};
    cuplas_sog_plan plan = {0};
    double *grid = NULL;
    float *sh = NULL;
    int *use = NULL, n = 0, nhead = 0;
    const char **sub = NULL;
    cuplas_error err;
    char *file = NULL, *group = NULL, *tmpdir = NULL;
    const char *dir;
    int c, rc = 0;
    long long v;
    struct stat st;

    cuplas_error_clear(&err);
    cuplas_cli_palette_init(&o.pal);
    cuplas_codec_opts_default(&o.so.co);
    o.so.co.threads = cuplas_max_threads();   /* libwebp's second thread: the same bytes */
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
            o.so.co.webp_method = (int)v;
            break;
        default: {   /* the SH palette's options, or an unknown one */
            int bad = cuplas_cli_palette_option("export-sog", c, optarg, argv, &o.pal);
            if (bad)
                return bad;
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
    /* only the format's channels are read (sog_write.h) */
    if ((rc = cuplas_h5_result_read(file, group, &r, &err)) == 0 &&
        (rc = cuplas_h5_result_check_whole(file, &r, &err)) == 0) {
        const int C = (int)r.sorted.C;
        const int64_t cells = r.sorted.H * r.sorted.W;
        if (!(use = malloc((size_t)C * sizeof *use)) || !(sub = malloc((size_t)C * sizeof *sub)))
            CUPLAS_FAIL(&err, CUPLAS_ERR_NOMEM, "out of memory");
        rc = cuplas_sog_prepare((const char *const *)r.names, C, r.index, cells, !o.no_sh, use,
                                sub, &n, &plan, &err);
        if (rc == 0)
            rc = cuplas_sog_read(&r.sorted, NULL, cells, use, n, &plan, 1, &grid, &nhead, &sh,
                                 NULL, &err);
    }
    if (rc) {
        cuplas_error_where(&err, "%s%s%s", file, r.group ? ":" : "", r.group ? r.group : "");
        goto fail;
    }
    if (!r.sorted.raw_lent)   /* read: only the doubles and floats are written from */
        free(r.sorted.raw);
    r.sorted.raw = NULL;
    o.so.sh = !o.no_sh;
    o.so.sh_x = sh;
    o.so.palette = o.pal.K;
    o.so.iterations = o.pal.iterations;
    CUPLAS_TRY(cuplas_cli_palette_device(&o.pal, plan.sh.bands > 0, file, &o.so.device, &err));
    if (!(tmpdir = cuplas_dir_tmp_name(dir)))
        CUPLAS_FAIL(&err, CUPLAS_ERR_NOMEM, "out of memory");
    CUPLAS_TRY(cuplas_mkdir_p(tmpdir, &err));
    if (cuplas_sog_write(grid, r.sorted.H, r.sorted.W, nhead, sub, &o.so, tmpdir, &plan,
                         &err) != 0) {
        rc = (int)err.code;
        cuplas_error_where(&err, "%s%s%s", file, r.group ? ":" : "", r.group ? r.group : "");
        goto fail;
    }
    CUPLAS_TRY(cuplas_dir_publish(tmpdir, dir, &err));
    printf("cuplas export-sog: %lld splats on a %lldx%lld texture -> %s (%d files, %lld "
           "bytes; %.2f s quantising, %.2f s the SH palette, %.2f s more WebP)\n",
           (long long)plan.count, (long long)r.sorted.W, (long long)r.sorted.H, dir, plan.files,
           (long long)plan.bytes, plan.quantise_s, plan.palette_s, plan.webp_s);
    if (plan.sh.bands)
        printf("cuplas export-sog: SH bands %d: a palette of %d entries, %d k-means updates "
               "(%lld labels moved by the last), mean squared error %.4g, assignment %.2f s "
               "on %s\n", plan.sh.bands, plan.sh.K, plan.sh.st.updates,
               (long long)plan.sh.st.moved, plan.sh.st.mse, plan.sh.st.assign_s,
               o.so.device < 0 ? "the CPU" : "the GPU");
fail:
    if (rc && tmpdir)
        cuplas_rm_tree(tmpdir);
    free(tmpdir);
    free(file);
    free(group);
    free(sh);
    free(grid);
    free(sub);
    free(use);
    cuplas_sog_plan_free(&plan);
    cuplas_h5_result_free(&r);
    return rc ? cuplas_cli_fail(&err) : CUPLAS_EXIT_OK;
}

const cuplas_cmd cuplas_cmd_export_sog_def = {
    "export-sog", cmd_export_sog, "write a result as PlayCanvas SOG (meta.json + WebP images)",
    export_sog_help, 0,
};
