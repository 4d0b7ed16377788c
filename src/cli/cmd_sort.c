/*
 * cmd_sort.c - `cuplas sort IN.h5:/dataset OUT.h5`: one grid, no config.
 *
 * Design fact: every option becomes a --set override of a config with no
 * file, so a one-off sort validates and behaves exactly like a batch job
 * (same schema, same runner, same output). Without --force an existing
 * OUT.h5 is an error: a one-off command should not silently replace files.
 */
#define _GNU_SOURCE /* strndup */
#include "cli/cli.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "io/h5_lib.h"
#include "io/h5_list.h"
#include "io/h5_read.h"
#include "io/ply.h"
#include "io/scene.h"
#include "util/log.h"
#include "pipeline/gpu_warm.h"
#include "pipeline/runner.h"
#include "util/clock.h"

static const char sort_help[] =
    "Usage: cuplas sort IN.h5[:/DATASET] OUT.h5 [options]\n"
    "       cuplas sort SCENE.ply|SCENE.splat OUT.h5 [--ply OUT.ply] [options]\n"
    "\n"
    "Sort one dataset and write OUT.h5 (exactly that path; the group inside\n"
    "is named after the dataset). DATASET may be left out when IN.h5 holds\n"
    "a single numeric dataset of rank 2 or 3. A 3DGS scene (PLY: ascii or\n"
    "binary, any vertex properties; antimatter15 .splat and SuperSplat\n"
    "compressed PLY, decoded to graphdeco floats) is the table of its\n"
    "vertices: group /vertex, every property a channel, named.\n"
    "\n"
    "Options:\n"
    "  --preset NAME            sort.preset: fast, default or best, a set of\n"
    "                           sort.* values (README \"Presets\"); a sort key\n"
    "                           given with --set overrides the preset's value\n"
    "  --seed N                 sort.seed (default 1337)\n"
    "  --backend auto|cpu|gpu   backend.device (default auto)\n"
    "  --gpu ID                 use this CUDA device (implies --backend gpu)\n"
    "  --threads N              backend.threads: CPU threads (0 = OpenMP default)\n"
    "  --height H, --width W    grid shape of an (N, C) dataset (default: its\n"
    "                           height/width attributes, else a square N, else\n"
    "                           auto, padded: see --grid)\n"
    "  --channels LIST          channels that drive the sort, e.g. 0,1,2 or 0-2,5,\n"
    "                           or by name: x,y,z,f_dc_0-2,scale_* (default: all)\n"
    "  --grid HxW|auto|square   grid of a scene or (N, C) dataset; N need not be\n"
    "                           H*W (default: scenes auto, HDF5 as stored);\n"
    "                           auto and square leave an (N, C) dataset's own\n"
    "                           height/width attributes, HxW refits it\n"
    "  --fit pad|crop           N != H*W: keep every item (empty cells) or keep\n"
    "                           the H*W with the highest --crop-by (default pad)\n"
    "  --crop-by NAME           the channel crop ranks by (default opacity)\n"
    "  --ply OUT.ply            a scene input: also its vertices in grid order\n"
    "  --weights LIST           one weight per used channel, e.g. 1,1,0.5\n"
    "  --normalize none|standardize|minmax   per-channel scaling (default none)\n"
    "  --set KEY=VALUE          any other config key (repeatable)\n"
    "  --log-format FORMAT      text, json or auto\n"
    "  --force                  replace OUT.h5 if it exists\n"
    "  --allow-external         read data that lives in other files (external\n"
    "                           links or storage; refused by default)\n"
    "  -h, --help               this text\n"
    "\n" CUPLAS_HELP_EXIT_CODES;

/* "0,1,2-4" -> "[0,1,\"2-4\"]" (ranges quoted for the YAML list). */
static int list_override(cuplas_overrides *ov, const char *key, const char *list, int ranges)
{
    size_t n = strlen(list) * 3 + 8, len = 1;
    char *buf = malloc(n), *copy = strdup(list), *save = NULL;
    int rc = -1;

    if (!buf || !copy)
        goto fail;
    buf[0] = '[';
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int quote = ranges && strspn(t, "0123456789") != strlen(t);   /* a range or a name */
        len += (size_t)snprintf(buf + len, n - len, "%s%s%s%s", len > 1 ? "," : "",
                                quote ? "\"" : "", t, quote ? "\"" : "");
    }
    snprintf(buf + len, n - len, "]");
    rc = cuplas_cli_override(ov, "%s=%s", key, buf);
fail:
    free(buf);
    free(copy);
    return rc;
}

/* Split "in.h5:/ds"; without ":/", the file's only dataset. */
static int split_input(const char *arg, char **file, char **dataset, cuplas_error *err)
{
    const char *sep = NULL;
    if (cuplas_ply_is_scene_path(arg)) {   /* a scene: its vertex table */
        *file = strdup(arg);
        *dataset = strdup(CUPLAS_SCENE_DATASET);
        return *file && *dataset ? 0 : cuplas_error_set(err, CUPLAS_ERR_NOMEM, "out of memory");
    }
    for (const char *p = strstr(arg, ":/"); p; p = strstr(p + 1, ":/"))
        sep = p;   /* the last ":/": a dataset path holds no ':' in practice */
    if (sep) {
        *file = strndup(arg, (size_t)(sep - arg));
        *dataset = strdup(sep + 1);
        return *file && *dataset ? 0 : cuplas_error_set(err, CUPLAS_ERR_NOMEM, "out of memory");
    }
    char **names = NULL;
    int count = 0, rc = 0;
    *file = strdup(arg);
    if (!*file)
        return cuplas_error_set(err, CUPLAS_ERR_NOMEM, "out of memory");
    if (cuplas_h5_list_datasets(arg, &names, &count, err) != 0) {
        /* "f.h5:a/b/grid": a file f.h5 and a dataset path without its '/' */
        const char *colon = strrchr(arg, ':');
        struct stat st;
        if (colon && colon[1] && stat(arg, &st) != 0) {
            char *prefix = strndup(arg, (size_t)(colon - arg));
            int is_file = prefix && stat(prefix, &st) == 0 && S_ISREG(st.st_mode);
            if (is_file) {
                cuplas_error_clear(err);
                cuplas_error_where(err, "%s", arg);
                rc = cuplas_error_set(err, CUPLAS_ERR_USAGE, "no such file, but %s is one: a "
                                      "dataset is named with a '/' after the ':', as %s:/%s",
                                      prefix, prefix, colon + 1);
                free(prefix);
                return rc;
            }
            free(prefix);
        }
        cuplas_error_fitf(err->where, sizeof err->where, "%s:/", arg);
        return (int)err->code;
    }
    if (count != 1) {
        cuplas_error_where(err, "%s", arg);
        rc = cuplas_error_set(err, CUPLAS_ERR_USAGE, "%d numeric datasets in the file; name "
                              "one as %s:/DATASET%s%s", count, arg, count ? ", e.g. " : "",
                              count ? names[0] : "");
    } else if (!(*dataset = strdup(names[0]))) {
        rc = cuplas_error_set(err, CUPLAS_ERR_NOMEM, "out of memory");
    }
    cuplas_h5_free_names(names, count);
    return rc;
}

static int cmd_sort(int argc, char **argv)
{
    enum { O_SEED = 256, O_PRESET, O_BACKEND, O_GPU, O_THREADS, O_HEIGHT, O_WIDTH, O_CHANNELS,
           O_WEIGHTS, O_NORMALIZE, O_SET, O_LOGFMT, O_FORCE, O_GRID, O_FIT, O_CROPBY,
           O_PLY, O_EXTERNAL };
    static const struct option opts[] = {
        {"seed", required_argument, NULL, O_SEED},
        {"preset", required_argument, NULL, O_PRESET},
        {"backend", required_argument, NULL, O_BACKEND},
        {"gpu", required_argument, NULL, O_GPU},
        {"threads", required_argument, NULL, O_THREADS},
        {"height", required_argument, NULL, O_HEIGHT},
        {"width", required_argument, NULL, O_WIDTH},
        {"channels", required_argument, NULL, O_CHANNELS},
        {"weights", required_argument, NULL, O_WEIGHTS},
        {"normalize", required_argument, NULL, O_NORMALIZE},
        {"set", required_argument, NULL, O_SET},
        {"log-format", required_argument, NULL, O_LOGFMT},
        {"force", no_argument, NULL, O_FORCE},
        {"grid", required_argument, NULL, O_GRID},
        {"fit", required_argument, NULL, O_FIT},
        {"crop-by", required_argument, NULL, O_CROPBY},
        {"ply", required_argument, NULL, O_PLY},
        {"allow-external", no_argument, NULL, O_EXTERNAL},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    cuplas_overrides ov = {0};
    cuplas_config cfg;
    cuplas_jobs jobs = {0};
    cuplas_runner runner;
    cuplas_log lg = {0};
    cuplas_error err;
    char *file = NULL, *dataset = NULL;
    const char *log_format = NULL, *ply_out = NULL;
    const char *shape_opt = NULL;   /* --grid/--height/--width: (N, C) and scenes only */
    long long height = 0, width = 0, v;
    int c, rc = CUPLAS_EXIT_OK, loaded = 0, have_runner = 0, force = 0, gpu = 0,
        backend = 0, bad = 0;
    double t_main = cuplas_now_s(), t_plan = 0;
    cuplas_gpu_warm *warm = NULL;

    cuplas_error_clear(&err);
    memset(&runner, 0, sizeof runner);
    /* no --force: an existing OUT.h5 fails the job (a later --set may change it) */
    bad |= cuplas_cli_override(&ov, "output.overwrite=error");
    optind = 0;
    opterr = 0; /* cuplas_cli_bad_option says it, in one line */
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case 'h':
            fputs(sort_help, stdout);
            goto done;
        case O_SEED: bad |= cuplas_cli_override(&ov, "sort.seed=%s", optarg); break;
        case O_PRESET: bad |= cuplas_cli_override(&ov, "sort.preset=%s", optarg); break;
        case O_BACKEND:
            backend = 1;
            bad |= cuplas_cli_override(&ov, "backend.device=%s", optarg);
            break;
        case O_GPU:
            gpu = 1;
            bad |= cuplas_cli_override(&ov, "backend.gpus=[%s]", optarg);
            break;
        case O_THREADS: bad |= cuplas_cli_override(&ov, "backend.threads=%s", optarg); break;
        case O_HEIGHT:
        case O_WIDTH:
            if (cuplas_cli_int(optarg, 1, INT64_MAX, &v) != 0) {
                rc = cuplas_cli_usage("sort", "--%s: expected a positive integer, got '%s'",
                                      c == O_HEIGHT ? "height" : "width", optarg);
                goto done;
            }
            *(c == O_HEIGHT ? &height : &width) = v;
            shape_opt = c == O_HEIGHT ? "--height" : "--width";
            break;
        case O_CHANNELS:
            bad |= strcmp(optarg, "all") ? list_override(&ov, "channels.use", optarg, 1)
                                         : cuplas_cli_override(&ov, "channels.use=all");
            break;
        case O_WEIGHTS: bad |= list_override(&ov, "channels.weights", optarg, 0); break;
        case O_NORMALIZE:
            bad |= cuplas_cli_override(&ov, "channels.normalize=%s", optarg);
            break;
        case O_SET: bad |= cuplas_cli_override(&ov, "%s", optarg); break;
        case O_LOGFMT:
            if ((rc = cuplas_cli_log_format("sort", optarg)) != 0)
                goto done;
            log_format = optarg;
            break;
        case O_FORCE: force = 1; break;
        case O_GRID:
            shape_opt = "--grid";
            bad |= cuplas_cli_override(&ov, "grid.shape=%s", optarg);
            break;
        case O_FIT: bad |= cuplas_cli_override(&ov, "grid.fit=%s", optarg); break;
        case O_CROPBY: bad |= cuplas_cli_override(&ov, "grid.crop_by=\"%s\"", optarg); break;
        case O_PLY: ply_out = optarg; break;
        case O_EXTERNAL: jobs.add_one_flags |= CUPLAS_H5_ALLOW_EXTERNAL; break;
        default:
            rc = cuplas_cli_bad_option("sort", c, argv);
            goto done;
        }
    }
    if (gpu && !backend)
        bad |= cuplas_cli_override(&ov, "backend.device=gpu");
    if (force)
        bad |= cuplas_cli_override(&ov, "output.overwrite=overwrite");
    if (bad) {
        rc = CUPLAS_EXIT_FATAL;
        goto done;
    }
    if (optind != argc - 2) {
        rc = cuplas_cli_usage("sort", "expected IN.h5:/DATASET and OUT.h5");
        goto done;
    }
    if ((rc = cuplas_cli_load_config(NULL, &ov, log_format, &cfg, &lg, &err)) != 0)
        goto done;
    loaded = 1;
    /* the GPU's context is made while the input is probed and read; one
       job runs on one lane unless backend.lanes says otherwise */
    warm = cuplas_gpu_warm_start(&cfg, cfg.backend.lanes > 0 ? cfg.backend.lanes : 1);
    /* a CPU sort's OpenMP teams must not spin: start again passive (cli.h);
       nothing is open or written yet */
    if (!cuplas_gpu_run_expected(&cfg))
        cuplas_cli_passive_openmp(argv - 1);
    t_plan = cuplas_now_s();
    if (split_input(argv[optind], &file, &dataset, &err) != 0) {
        rc = cuplas_cli_fail(&err);
        goto done;
    }
    if (cuplas_jobs_add_one(&jobs, &cfg, file, dataset, height, width, argv[optind + 1],
                            &err) != 0) {
        rc = cuplas_cli_fail(&err);
        goto done;
    }
    if (shape_opt && jobs.n == 1 && jobs.v[0].rank == 3) {
        /* an (H, W, C) grid keeps its shape: the option would be lost without a word */
        const cuplas_job *jb = &jobs.v[0];
        rc = cuplas_cli_usage("sort", "%s applies to (N, C) datasets and scenes; %s:%s is "
                              "%lldx%lldx%lld", shape_opt, jb->file, jb->dataset,
                              (long long)jb->H, (long long)jb->W, (long long)jb->C);
        goto done;
    }
    if ((ply_out && cuplas_jobs_set_ply(&jobs, ply_out, &err) != 0) ||
        /* IN, OUT.h5 and --ply are three files: checked before any write */
        cuplas_jobs_check_paths(&jobs, &err) != 0 ||
        cuplas_runner_init(&runner, &cfg, &jobs, &lg, &err) != 0) {
        rc = cuplas_cli_fail(&err);
        goto done;
    }
    have_runner = 1;
    runner.t_main = t_main;
    runner.plan_s = cuplas_now_s() - t_plan;
    runner.warm = warm;
    cuplas_cli_catch_signals(&runner.cancel);
    if (cuplas_runner_run(&runner, &err) != 0) {
        cuplas_cli_error(&err);
        rc = runner.cancel ? CUPLAS_EXIT_INTERRUPTED : CUPLAS_EXIT_FATAL;
        goto done;
    }
    rc = cuplas_runner_exit_code(&runner);
done:
    cuplas_cli_catch_signals(NULL);
    if (have_runner)
        cuplas_runner_free(&runner);
    cuplas_gpu_warm_free(warm);
    cuplas_jobs_free(&jobs);
    free(file);
    free(dataset);
    return cuplas_cli_finish(&lg, &cfg, loaded, &ov, rc);
}

const cuplas_cmd cuplas_cmd_sort_def = {
    "sort", cmd_sort, "sort one dataset into one output file (no config)", sort_help,
    1,   /* openmp_late */
};
