/*
 * cmd_export.c - `cuplas export-ply OUT.h5[:/GROUP] IN.ply SORTED.ply`:
 * a scene's vertices in the grid order of an earlier result.
 *
 * Design fact: the result's `index` is the whole recipe (row-major cells,
 * -1 = an empty cell of a padded grid), so the export needs no config and
 * no sort: the rows are copied byte for byte from IN (ply_write), and the
 * file appears under its name only when complete (temp + rename). An
 * index fits any scene of enough vertices, so IN is first held against
 * what the result records of its input (input_shape, channel_names): a
 * result of another scene is refused, not exported as a plausible PLY.
 */
#include "cli/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/h5_lib.h"
#include "io/h5_list.h"
#include "io/h5_read.h"
#include "io/h5_result.h"
#include "io/ply.h"
#include "io/publish.h"
#include "io/scene.h"
#include "util/fsutil.h"

static const char export_help[] =
    "Usage: cuplas export-ply OUT.h5[:/GROUP] IN.ply|IN.splat SORTED.ply\n"
    "\n"
    "Write IN's vertices in the grid order of OUT.h5 (a result of `cuplas sort`\n"
    "or `cuplas run` on IN; GROUP defaults to /vertex): row-major, empty cells\n"
    "(index -1) skipped, every property byte for byte, IN's header kept (a\n"
    ".splat or a SuperSplat compressed PLY becomes a graphdeco binary PLY of\n"
    "its decoded rows). SORTED.ply is replaced atomically.\n"
    "IN must be the scene OUT.h5 was sorted from: the vertex count (and the\n"
    "property names, where OUT.h5 records channel_names) must match.\n"
    "\n"
    "Exit codes: 0 written; 1 a bad input (IN is not the scene OUT.h5 was\n"
    "sorted from, an index that does not fit IN, a malformed PLY); 2 usage\n"
    "(also: SORTED.ply is OUT.h5 or IN, or exists and is not a regular file);\n"
    "75 interrupted by SIGINT, SIGTERM or SIGUSR1 (no file written).\n";

/* The result's index as int64 (cells), from group/index. */
static int read_index(const char *file, const char *group, int64_t **order, int64_t *cells,
                      cuplas_error *err)
{
    char ds[1024];
    cuplas_h5grid g;
    int rc;

    snprintf(ds, sizeof ds, "%s/index", group);
    /* (H, W) integers: read as H rows of W values */
    if ((rc = cuplas_h5_read_grid(file, ds, 0, 1, &g, err)) != 0)
        goto done;
    *cells = g.H * g.C;
    if (g.type.cls != CUPLAS_DTYPE_INT || !g.type.is_signed ||
        (g.type.size != 4 && g.type.size != 8) || g.type.big_endian) {
        rc = cuplas_error_set(err, CUPLAS_ERR_INPUT, "%s is %s, not a cuplas index", ds,
                              g.dtype);
        cuplas_error_where(err, "%s", file);
        goto done;
    }
    if (!(*order = malloc((size_t)*cells * sizeof **order))) {
        rc = cuplas_error_set(err, CUPLAS_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (int64_t i = 0; i < *cells; i++) {
        if (g.type.size == 4) {
            int32_t v;
            memcpy(&v, (const char *)g.raw + 4 * i, 4);
            (*order)[i] = v;
        } else {
            memcpy(&(*order)[i], (const char *)g.raw + 8 * i, 8);
        }
    }
done:
    cuplas_h5grid_free(&g);
    return rc;
}

/* IN is the scene the result was sorted from: as many vertices as the
 * input_shape's rows, and its property names where channel_names are
 * recorded. A result without input_shape (not cuplas's) is taken on
 * trust: the index is still checked against IN as it is written. */
static int check_scene(const char *file, const char *group, const cuplas_ply *p,
                       cuplas_error *err)
{
    char **names = NULL;
    int64_t rows = 0;
    int nnames = 0, rc = 0, got = cuplas_h5_output_input(file, group, &rows, &names, &nnames);

    if (got == -2)
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
    if (got != 0)
        goto fail;
    if (rows != p->n)
        CUPLAS_FAIL_IN(err, CUPLAS_ERR_INPUT, p->path, "%lld vertices, but %s:%s was sorted "
                       "from %lld rows: export-ply needs the scene it was sorted from",
                       (long long)p->n, file, group, (long long)rows);
    if (names && nnames != p->nprops)
        CUPLAS_FAIL_IN(err, CUPLAS_ERR_INPUT, p->path, "%d properties, but %s:%s was sorted "
                       "from %d channels: export-ply needs the scene it was sorted from",
                       p->nprops, file, group, nnames);
    for (int k = 0; names && k < nnames; k++)
        if (strcmp(names[k], p->props[k].name))
            CUPLAS_FAIL_IN(err, CUPLAS_ERR_INPUT, p->path, "property %d is '%s', but channel "
                           "%d of %s:%s is '%s': export-ply needs the scene it was sorted from",
                           k, p->props[k].name, k, file, group, names[k]);
fail:
    cuplas_h5_free_names(names, nnames);
    return rc;
}

static int cmd_export(int argc, char **argv)
{
    cuplas_error err;
    cuplas_ply p;
    int64_t *order = NULL, cells = 0;
    char *file = NULL, *spec_group = NULL, *tmp = NULL;
    const char *group;
    int rc = CUPLAS_EXIT_OK;

    cuplas_error_clear(&err);
    memset(&p, 0, sizeof p);
    if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
        fputs(export_help, stdout);
        return CUPLAS_EXIT_OK;
    }
    if (argc != 4)
        return cuplas_cli_usage("export-ply", "expected OUT.h5 IN.ply SORTED.ply");
    cuplas_h5_quiet();
    if (cuplas_cli_split_spec(argv[1], &file, &spec_group) != 0) {
        free(file);
    free(spec_group);
        return CUPLAS_EXIT_FATAL;
    }
    group = spec_group ? spec_group : CUPLAS_SCENE_DATASET;
    /* SIGINT, SIGTERM and SIGUSR1 from here on stop the write at its next
       block, or before it, and remove the temp file (exit 75), as `run` and
       `gen` do */
    volatile int stop = 0;
    cuplas_cli_catch_signals(&stop);
    /* nothing is read before the paths are known to be safe, and nothing
       written before IN is known to be the result's scene */
    const cuplas_path_role paths[3] = {
        {"result", file, 0}, {"input", argv[2], 0}, {"SORTED.ply", argv[3], 1}};
    if (cuplas_paths_check(paths, 3, &err) != 0 ||
        read_index(file, group, &order, &cells, &err) != 0 ||
        cuplas_ply_open(argv[2], &p, &err) != 0 || check_scene(file, group, &p, &err) != 0 ||
        !(tmp = cuplas_tmp_create(argv[3], &err))) {
        rc = cuplas_cli_fail(&err);
        goto done;
    }
    /* published with fsync: each block's writeback starts as it is written */
    int wrc = cuplas_ply_write(&p, NULL, order, cells, tmp,
                               &(cuplas_ply_write_opts){.writeback = 1, .cancel = &stop}, &err);
    if (wrc == 0 && stop)   /* the signal came after the last block */
        wrc = cuplas_error_set(&err, CUPLAS_ERR_INTERRUPTED,
                               "interrupted by a signal: no file written");
    if (wrc == CUPLAS_ERR_INTERRUPTED)   /* named by its own path, not the temp's */
        cuplas_error_where(&err, "%s", argv[3]);
    if (wrc != 0 || cuplas_tmp_publish(tmp, argv[3], 1, &err) != 0) {
        unlink(tmp);
        rc = cuplas_cli_fail(&err);
    }
done:
    cuplas_cli_catch_signals(NULL);
    cuplas_ply_close(&p);
    free(order);
    free(tmp);
    free(file);
    return rc;
}

const cuplas_cmd cuplas_cmd_export_def = {
    "export-ply", cmd_export, "write a scene's vertices in an earlier result's grid order",
    export_help, 0,
};
