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
 * The index is checked as eval's and export-sog's is (h5_result.h): each
 * input row in one cell, none lost but a crop's, so that no vertex is
 * written twice or left out.
 */
#include "cli/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/h5_lib.h"
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
    "Exit codes: 0 written; 1 a bad input (OUT.h5 is not a readable result: no\n"
    "input_shape, an index that is not a permutation of its rows; IN is not the\n"
    "scene OUT.h5 was sorted from, a malformed PLY); 2 usage\n"
    "(also: SORTED.ply is OUT.h5 or IN, or exists and is not a regular file);\n"
    "75 interrupted by SIGINT, SIGTERM or SIGUSR1 (no file written).\n";

/* IN is the scene the result was sorted from: as many vertices as the
 * input_shape's rows, and its property names where channel_names are
 * recorded. The result is read strictly (cuplas_h5_result_read_index):
 * without a usable input_shape nothing says which scene that is. */
static int check_scene(const char *file, const cuplas_h5_result *r, const cuplas_ply *p,
                       cuplas_error *err)
{
    int rc = 0;

    if (r->rows != p->n)
        CUPLAS_FAIL_IN(err, CUPLAS_ERR_INPUT, p->path, "%lld vertices, but %s:%s was sorted "
                       "from %lld rows: export-ply needs the scene it was sorted from",
                       (long long)p->n, file, r->group, (long long)r->rows);
    if (r->names && r->nnames != p->nprops)
        CUPLAS_FAIL_IN(err, CUPLAS_ERR_INPUT, p->path, "%d properties, but %s:%s was sorted "
                       "from %d channels: export-ply needs the scene it was sorted from",
                       p->nprops, file, r->group, r->nnames);
    for (int k = 0; r->names && k < r->nnames; k++)
        if (strcmp(r->names[k], p->props[k].name))
            CUPLAS_FAIL_IN(err, CUPLAS_ERR_INPUT, p->path, "property %d is '%s', but channel "
                           "%d of %s:%s is '%s': export-ply needs the scene it was sorted from",
                           k, p->props[k].name, k, file, r->group, r->names[k]);
fail:
    return rc;
}

static int cmd_export(int argc, char **argv)
{
    cuplas_error err;
    cuplas_ply p;
    cuplas_h5_result r = {0};
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
        cuplas_h5_result_read_index(file, group, &r, &err) != 0 ||
        cuplas_h5_result_check_whole(file, &r, &err) != 0 ||
        cuplas_ply_open(argv[2], &p, &err) != 0 || check_scene(file, &r, &p, &err) != 0 ||
        !(tmp = cuplas_tmp_create(argv[3], &err))) {
        rc = cuplas_cli_fail(&err);
        goto done;
    }
    /* published with fsync: each block's writeback starts as it is written */
    int wrc = cuplas_ply_write(&p, NULL, r.index, r.cells, tmp,
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
    cuplas_h5_result_free(&r);
    free(tmp);
    free(file);
    return rc;
}

const cuplas_cmd cuplas_cmd_export_def = {
    "export-ply", cmd_export, "write a scene's vertices in an earlier result's grid order",
    export_help, 0,
};
