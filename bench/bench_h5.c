/*
 * bench_h5.c - the HDF5 work of one job, phase by phase, without a sorter.
 *
 *   bench_h5 [--deflate N] [--rounds R] INPUT.h5 OUTDIR
 *
 * For every grid of INPUT.h5, in R rounds, runs the pipeline's I/O as the
 * runner does: read_begin (HDF5 thread) + read_finish, encode, write
 * (HDF5 thread) + write_raw + publish, with a fixed permutation as the
 * index, and one lane's lent buffers. The serialised phases are what bounds a multi-GPU run of many
 * small grids (one HDF5 thread serves every lane), so their per-grid
 * medians are the figure to cut. Prints one JSON line.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "io/codec.h"
#include "io/dtype.h"
#include "io/h5_lib.h"
#include "io/h5_list.h"
#include "io/h5_read.h"
#include "io/h5_write.h"
#include "io/publish.h"
#include "util/clock.h"

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_ms(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return n ? 1e3 * (n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2])) : 0;
}

enum { P_READ, P_FINISH, P_ENCODE, P_WRITE, P_RAW, P_PUBLISH, NPHASE };
static const char *phase_name[NPHASE] = {"read_begin", "read_finish", "encode",
                                         "write", "write_raw", "publish"};

/* One grid through every phase; t[p] gets each phase's seconds. */
static int one_grid(const char *file, const char *dataset, const char *out,
                    const cuplas_output_opts *opts, cuplas_h5_buffers *io, double *t,
                    cuplas_error *e)
{
    cuplas_h5grid g;
    cuplas_h5_fetch *fetch = NULL;
    cuplas_h5_encoded *enc = NULL;
    cuplas_result_meta meta = {.params_yaml = "bench: 1\n", .version = "bench",
                               .backend = "none", .device_name = "none", .identity = "bench"};
    int64_t *index = NULL;
    char *tmp = NULL;
    int rc = 0;
    double t0 = cuplas_now_s();

    memset(&g, 0, sizeof g);
    if ((rc = cuplas_h5_read_begin(file, dataset, 0, 0, 0, &g, &fetch, io, e)) != 0)
        goto done;
    t[P_READ] = cuplas_now_s() - t0, t0 = cuplas_now_s();
    if ((rc = cuplas_h5_read_finish(&g, fetch, NULL, e)) != 0)
        goto done;
    t[P_FINISH] = cuplas_now_s() - t0, t0 = cuplas_now_s();
    int64_t N = g.H * g.W;
    if (!(index = malloc((size_t)N * sizeof *index))) {
        rc = cuplas_error_set(e, CUPLAS_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (int64_t i = 0; i < N; i++)   /* a fixed permutation: reversal */
        index[i] = N - 1 - i;
    if ((rc = cuplas_h5_encode_result(&g, index, opts, io, NULL, &enc, e)) != 0 ||
        !(tmp = cuplas_tmp_create(out, e))) {
        rc = rc ? rc : (int)e->code;
        goto done;
    }
    t[P_ENCODE] = cuplas_now_s() - t0, t0 = cuplas_now_s();
    if ((rc = cuplas_h5_write_encoded_to(tmp, &g, enc, &meta, e)) != 0)
        goto done;
    t[P_WRITE] = cuplas_now_s() - t0, t0 = cuplas_now_s();
    if ((rc = cuplas_h5_write_raw(tmp, enc, NULL, e)) != 0)
        goto done;
    t[P_RAW] = cuplas_now_s() - t0, t0 = cuplas_now_s();
    rc = cuplas_tmp_publish(tmp, out, opts->fsync, e);
    t[P_PUBLISH] = cuplas_now_s() - t0;
done:
    if (rc && tmp)
        unlink(tmp);
    free(tmp);
    free(index);
    cuplas_h5_encoded_free(enc);
    cuplas_h5grid_free(&g);
    return rc;
}

int main(int argc, char **argv)
{
    cuplas_output_opts opts = {.deflate = 0, .shuffle = 1, .fsync = 0};
    int rounds = 3, opt, count = 0, rc = 0;
    char **names = NULL;
    cuplas_error e;

    while ((opt = getopt_long(argc, argv, "", (struct option[]){
                {"deflate", required_argument, NULL, 'd'},
                {"rounds", required_argument, NULL, 'r'},
                {NULL, 0, NULL, 0}}, NULL)) != -1) {
        if (opt == 'd')
            opts.deflate = atoi(optarg);
        else if (opt == 'r')
            rounds = atoi(optarg);
        else
            return 2;
    }
    if (argc - optind != 2 || rounds < 1) {
        fprintf(stderr, "usage: bench_h5 [--deflate N] [--rounds R] INPUT.h5 OUTDIR\n");
        return 2;
    }
    const char *file = argv[optind], *dir = argv[optind + 1];
    cuplas_error_clear(&e);
    cuplas_h5_quiet();
    if (!getenv("BENCH_H5_UNTUNED"))   /* the runner's settings, unless asked */
        cuplas_h5_tune();
    mkdir(dir, 0777);
    if (cuplas_h5_list_datasets(file, &names, &count, &e) != 0 || count == 0) {
        fprintf(stderr, "bench_h5: %s: %s\n", file, count ? e.msg : "no grids");
        return 1;
    }
    int n = rounds * count;
    double *t = calloc((size_t)n * NPHASE, sizeof *t), *col = malloc((size_t)n * sizeof *col);
    int64_t pin = cuplas_h5_pin(file);   /* as the runner: input kept open, */
    cuplas_h5_buffers io = {0};          /* grid-sized memory reused        */
    double t0 = cuplas_now_s();
    for (int k = 0; k < n && rc == 0; k++) {
        char out[4096];
        snprintf(out, sizeof out, "%s/g%d.h5", dir, k % count);
        if ((rc = one_grid(file, names[k % count], out, &opts, &io, &t[(size_t)k * NPHASE],
                           &e)))
            fprintf(stderr, "bench_h5: %s:%s: %s\n", file, names[k % count], e.msg);
    }
    double wall = cuplas_now_s() - t0;
    cuplas_h5_unpin(pin);
    cuplas_h5_buffers_free(&io);
    printf("{\"file\":\"%s\",\"grids\":%d,\"deflate\":%d,\"wall_ms_per_grid\":%.4f", file, n,
           opts.deflate, 1e3 * wall / n);
    for (int p = 0; p < NPHASE; p++) {
        for (int k = 0; k < n; k++)
            col[k] = t[(size_t)k * NPHASE + p];
        printf(",\"%s_ms\":%.4f", phase_name[p], median_ms(col, n));
    }
    printf("}\n");
    free(t);
    free(col);
    cuplas_h5_free_names(names, count);
    return rc ? 1 : 0;
}
