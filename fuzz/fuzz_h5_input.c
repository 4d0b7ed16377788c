/*
 * fuzz_h5_input.c - libFuzzer target: the HDF5 input path on arbitrary
 * bytes, as the pipeline runs it, on one thread.
 *
 * The bytes are written to a file; then, as planning and the read stage
 * do: list its datasets, and for each (at most 4) probe it, read_begin
 * (locate or read whole), read_finish (pread and inflate), and convert
 * every channel to double. Every outcome must be a result or an
 * error with its reason; never a crash or a leak of cuplas's own.
 * Grids over 4 MiB are skipped after the probe, as the pipeline's
 * memory check would skip grids too large for the machine: larger ones
 * reach no other code, and under ASan HDF5's chunk buffers of that size
 * take seconds an input (libFuzzer's timeout on a slow CI machine).
 *
 *   make fuzz && fuzz/fuzz_h5_input fuzz/corpus/h5_input
 *
 * Seeds: small files of `cuplas gen`, a chunked shuffle + deflate and a
 * fletcher32 file, and shared/data/bad-inputs/divergent-chunk-index.h5
 * (made for this project: a damaged chunk index).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hdf5.h>

#include "io/codec.h"
#include "io/dtype.h"
#include "io/h5_lib.h"
#include "io/h5_list.h"
#include "io/h5_read.h"
#include "util/threads.h"
#include "fuzz_file.h"

#define MAX_GRID_BYTES ((size_t)4 << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
const char *__lsan_default_suppressions(void);
const char *__asan_default_options(void);

/* HDF5 sizes its metadata buffers from the file: a corrupt header asks
 * malloc for exabytes, which fails (NULL) and HDF5 reports it. ASan would
 * abort instead; fuzz/h5_input.options lifts libFuzzer's own malloc
 * limit for the same reason. */
const char *__asan_default_options(void)
{
    return "allocator_may_return_null=1";
}

/* HDF5 1.10 itself loses a few blocks on some corrupt files (direct leaks
 * allocated inside libhdf5, no cuplas frame): not ours to find here. An
 * id that cuplas leaves open is caught below instead. */
const char *__lsan_default_suppressions(void)
{
    return "leak:libhdf5\n";
}

/* Every failure says why. (Names are data and may hold a newline: the
 * log and the CLI escape control characters when they print them.) */
static void one_line(const cuplas_error *err)
{
    if (!err->msg[0])
        abort();
}

static void read_one(const char *path, const char *dataset)
{
    cuplas_h5grid g;
    cuplas_h5_fetch *fetch = NULL;
    cuplas_error err = {0};

    if (cuplas_h5_probe_grid(path, dataset, 0, 0, 0, &g, &err) != 0) {
        one_line(&err);
        return;
    }
    /* in double: a header may claim dimensions whose product overflows
       int64 (corpus/h5_input/huge-dims.h5), which cuplas refuses by its
       memory check (jobs.c) */
    double bytes = (double)g.H * (double)g.W * (double)g.C * (double)g.elem_size;
    int64_t C = g.C;
    cuplas_h5grid_free(&g);
    if (bytes > (double)MAX_GRID_BYTES)
        return;
    if (cuplas_h5_read_begin(path, dataset, 0, 0, 0, &g, &fetch, NULL, &err) != 0 ||
        cuplas_h5_read_finish(&g, fetch, NULL, &err) != 0) {
        one_line(&err);
        cuplas_h5grid_free(&g);
        return;
    }
    int *use = malloc((size_t)C * sizeof *use);
    double *x = malloc((size_t)(g.H * g.W * C) * sizeof *x + 1);
    if (use && x) {
        for (int c = 0; c < C; c++)
            use[c] = c;
        if (cuplas_h5grid_to_double(&g, use, (int)C, x, NULL, &err) != 0)
            one_line(&err);   /* NaN or Inf in the data */
    }
    free(use);
    free(x);
    cuplas_h5grid_free(&g);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int once;
    char path[] = "/tmp/fuzz_h5_input.XXXXXX";
    char **names = NULL;
    int count = 0;
    cuplas_error err = {0};

    if (!once) {
        cuplas_h5_quiet();
        cuplas_set_threads(1);
        once = 1;
    }
    if (fuzz_file(path, 0, data, size) != 0)
        return 0;
    if (cuplas_h5_list_datasets(path, &names, &count, &err) != 0)
        one_line(&err);
    for (int i = 0; i < count && i < 4; i++)
        read_one(path, names[i]);
    cuplas_h5_free_names(names, count);
    /* a name that is not listed: the probe's own checks */
    read_one(path, "/grid");
    if (H5Fget_obj_count((hid_t)H5F_OBJ_ALL, H5F_OBJ_ALL) != 0)
        abort();   /* cuplas left an HDF5 file, dataset or attribute open */
    unlink(path);
    return 0;
}
