/*
 * cmd_gen.c - `cuplas gen`: deterministic synthetic inputs, and the README
 * demo collection (`cuplas gen --demo DIR`).
 *
 * Same options, same bytes on any machine (gen.h). The demo set is fixed
 * here, seeds included, so the README's numbers can be reproduced.
 */
#include "cli/cli.h"
#include "util/fsutil.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "io/h5_gen.h"
#include "io/h5_lib.h"

static const char gen_help[] =
    "Usage: cuplas gen [options] OUT.h5\n"
    "       cuplas gen --demo DIR\n"
    "\n"
    "Write a synthetic input file, byte-identical for the same options.\n"
    "\n"
    "Options:\n"
    "  --kind colors|normal|gaussians  what to generate (default colors):\n"
    "                     colors    uint8 (H, W, 3), uniform 0..255\n"
    "                     normal    float32 (H, W, C), standard normal\n"
    "                     gaussians float32 3DGS-like attributes, 14 channels,\n"
    "                               flat (N, 14) + height/width attributes\n"
    "  --size HxW         grid size (default 256x256; N alone = NxN)\n"
    "  --channels C       channels of `normal` (default 16)\n"
    "  --seed S           seed (default 0)\n"
    "  --count K          K datasets DATASET_000 .. (default 1: just DATASET)\n"
    "  --dataset /NAME    dataset path (default /grid)\n"
    "  --grid             gaussians as (H, W, 14) instead of flat\n"
    "  --deflate N        gzip level 0..9 (default 4)\n"
    "  --corrupt          truncate the finished file (an unreadable test input)\n"
    "  --demo DIR         write the README demo collection into DIR: colours\n"
    "                     256x256 and 512x512, normal 256x256x16, gaussians\n"
    "                     128x128 (flat)\n"
    "  -h, --help         this text\n"
    "\n"
    "Exit codes: 0 written, 1 cannot write, 2 usage error, 75 interrupted by\n"
    "SIGINT, SIGTERM or SIGUSR1 (no file written; files --demo finished stay).\n";

/* "HxW" or "N" -> H, W. */
static int parse_size(const char *s, int64_t *H, int64_t *W)
{
    char *end;
    errno = 0;
    long long h = strtoll(s, &end, 10), w = h;
    if (errno || end == s || h <= 0)
        return -1;
    if (*end == 'x' || *end == 'X') {
        const char *p = end + 1;
        w = strtoll(p, &end, 10);
        if (errno || end == p || w <= 0)
            return -1;
    }
    if (*end)
        return -1;
    *H = h;
    *W = w;
    return 0;
}

static int write_one(const cuplas_gen_opts *o)
{
    cuplas_error err;
    char *dir = cuplas_path_dir(o->path);
    cuplas_error_clear(&err);
    /* like the output folder of `run`, the file's folder is created */
    int rc = dir ? cuplas_mkdir_p(dir, &err) : cuplas_error_set(&err, CUPLAS_ERR_NOMEM, "out of memory");
    free(dir);
    if (rc != 0 || cuplas_gen_write(o, &err) != 0) {
        cuplas_cli_error(&err);
        return err.code == CUPLAS_ERR_USAGE         ? CUPLAS_EXIT_USAGE
               : err.code == CUPLAS_ERR_INTERRUPTED ? CUPLAS_EXIT_INTERRUPTED
                                                    : CUPLAS_EXIT_JOBS_FAILED;
    }
    /* the names h5_gen.c gives: the base alone, or base_000 .. base_K-1 */
    const char *base = o->dataset && o->dataset[0] ? o->dataset : "/grid";
    char names[160];
    if (o->count == 1)
        snprintf(names, sizeof names, "%s", base);
    else
        snprintf(names, sizeof names, "%s_000..%s_%03d", base, base, o->count - 1);
    printf("wrote %s: %s %" PRId64 "x%" PRId64 "x%" PRId64 " %s, %d dataset%s (%s%s), seed %"
           PRIu64 "\n", o->path, cuplas_gen_kind_name(o->kind), o->H, o->W,
           cuplas_gen_channels(o), o->kind == CUPLAS_GEN_COLORS ? "uint8" : "float32",
           o->count, o->count == 1 ? "" : "s", names,
           o->kind == CUPLAS_GEN_GAUSSIANS && o->flat ? ", flat" : "", o->seed);
    return CUPLAS_EXIT_OK;
}

/* The README demo: four files, fixed seeds. */
static int write_demo(const char *dir, const volatile int *cancel)
{
    static const struct {
        const char *name;
        cuplas_gen_kind kind;
        int64_t H, W, C;
        uint64_t seed;
    } demo[] = {
        {"colors-256.h5", CUPLAS_GEN_COLORS, 256, 256, 3, 1},
        {"colors-512.h5", CUPLAS_GEN_COLORS, 512, 512, 3, 2},
        {"normal-256x256x16.h5", CUPLAS_GEN_NORMAL, 256, 256, 16, 3},
        {"gaussians-128.h5", CUPLAS_GEN_GAUSSIANS, 128, 128, 14, 4},
    };
    char path[4096];

    /* mkdir -p DIR */
    snprintf(path, sizeof path, "%s", dir);
    for (char *s = path + 1;; s++) {
        if (*s == '/' || !*s) {
            char c = *s;
            *s = '\0';
            if (mkdir(path, 0777) != 0 && errno != EEXIST) {
                fprintf(stderr, "cuplas: error: %s: cannot create folder: %s\n", path,
                        strerror(errno));
                return CUPLAS_EXIT_JOBS_FAILED;
            }
            *s = c;
            if (!c)
                break;
        }
    }
    for (size_t i = 0; i < sizeof demo / sizeof demo[0]; i++) {
        cuplas_gen_opts o;
        cuplas_gen_defaults(&o);
        snprintf(path, sizeof path, "%s/%s", dir, demo[i].name);
        o.path = path;
        o.kind = demo[i].kind;
        o.H = demo[i].H;
        o.W = demo[i].W;
        o.C = demo[i].C;
        o.seed = demo[i].seed;
        o.cancel = cancel;
        int rc = write_one(&o);
        if (rc)
            return rc;
    }
    return CUPLAS_EXIT_OK;
}

static int cmd_gen(int argc, char **argv)
{
    enum { O_KIND = 256, O_SIZE, O_CHANNELS, O_SEED, O_COUNT, O_DATASET, O_GRID, O_DEFLATE,
           O_CORRUPT, O_DEMO };
    static const struct option opts[] = {
        {"kind", required_argument, NULL, O_KIND},
        {"size", required_argument, NULL, O_SIZE},
        {"channels", required_argument, NULL, O_CHANNELS},
        {"seed", required_argument, NULL, O_SEED},
        {"count", required_argument, NULL, O_COUNT},
        {"dataset", required_argument, NULL, O_DATASET},
        {"grid", no_argument, NULL, O_GRID},
        {"deflate", required_argument, NULL, O_DEFLATE},
        {"corrupt", no_argument, NULL, O_CORRUPT},
        {"demo", required_argument, NULL, O_DEMO},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    cuplas_gen_opts o;
    const char *demo = NULL;
    const char *other = NULL;   /* an option --demo would ignore */
    long long v;
    int c;

    cuplas_gen_defaults(&o);
    optind = 0;
    opterr = 0; /* cuplas_cli_bad_option says it, in one line */
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        if (c != O_DEMO && c != 'h' && c != '?' && c != ':' && !other) {
            /* the option's word: the one before its value when that is a word of its own */
            int word = optind - 1 - (optarg && optarg == argv[optind - 1]);
            other = argv[word];
        }
        switch (c) {
        case 'h':
            fputs(gen_help, stdout);
            return CUPLAS_EXIT_OK;
        case O_KIND:
            if (cuplas_gen_kind_parse(optarg, &o.kind) != 0)
                return cuplas_cli_usage("gen", "--kind: unknown kind '%s' (accepted: colors, "
                                        "normal, gaussians)", optarg);
            break;
        case O_SIZE:
            if (parse_size(optarg, &o.H, &o.W) != 0)
                return cuplas_cli_usage("gen", "--size: expected HxW, got '%s'", optarg);
            break;
        case O_CHANNELS:
            if (cuplas_cli_int(optarg, 1, 4096, &v) != 0)
                return cuplas_cli_usage("gen", "--channels: expected 1..4096, got '%s'", optarg);
            o.C = v;
            break;
        case O_SEED: {
            char *end;
            errno = 0;
            o.seed = strtoull(optarg, &end, 10);
            if (errno || end == optarg || *end || optarg[0] == '-')
                return cuplas_cli_usage("gen", "--seed: expected 0..2^64-1, got '%s'", optarg);
            break;
        }
        case O_COUNT:
            if (cuplas_cli_int(optarg, 1, 100000, &v) != 0)
                return cuplas_cli_usage("gen", "--count: expected 1..100000, got '%s'", optarg);
            o.count = (int)v;
            break;
        case O_DATASET: o.dataset = optarg; break;
        case O_GRID: o.flat = false; break;
        case O_DEFLATE:
            if (cuplas_cli_int(optarg, 0, 9, &v) != 0)
                return cuplas_cli_usage("gen", "--deflate: expected 0..9, got '%s'", optarg);
            o.deflate = (int)v;
            break;
        case O_CORRUPT: o.corrupt = true; break;
        case O_DEMO: demo = optarg; break;
        default: return cuplas_cli_bad_option("gen", c, argv);
        }
    }
    cuplas_h5_quiet();
    if (demo) {
        if (optind != argc)
            return cuplas_cli_usage("gen", "--demo DIR takes no OUT.h5");
        if (other)   /* the demo's files are fixed: a size or seed would be lost */
            return cuplas_cli_usage("gen", "--demo DIR takes no other option (got %s)", other);
    } else if (optind != argc - 1) {
        return cuplas_cli_usage("gen", "expected one OUT.h5");
    }
    /* SIGINT, SIGTERM and SIGUSR1 stop the write at the next slab and
     * remove the temp file (exit 75), as `run` does: a killed gen of a large
     * grid left hundreds of MB of hidden temp files behind */
    volatile int stop = 0;
    cuplas_cli_catch_signals(&stop);
    int rc;
    if (demo) {
        rc = write_demo(demo, &stop);
    } else {
        o.path = argv[optind];
        o.cancel = &stop;
        rc = write_one(&o);
    }
    cuplas_cli_catch_signals(NULL);
    return rc;
}

const cuplas_cmd cuplas_cmd_gen_def = {
    "gen", cmd_gen, "write deterministic synthetic inputs (or the demo collection)", gen_help, 0,
};
