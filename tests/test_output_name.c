/*
 * test_output_name.c - output.name's placeholders and the PLY twin's
 * name, as a table: each row an input and the name it must give.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pipeline/output_name.h"

typedef struct name_case {
    const char *dir, *tmpl, *file, *dataset;
    int rel_at;
    const char *want;
} name_case;

static const name_case cases[] = {
    /* the default name; the folder gets its slash once */
    {"out", "{stem}.{dataset}.h5", "data/a.h5", "/grid", 5, "out/a.grid.h5"},
    {"out/", "{stem}.{dataset}.h5", "data/a.h5", "/grid", 5, "out/a.grid.h5"},
    {"", "{stem}.{dataset}.h5", "a.h5", "grid", 0, "a.grid.h5"},
    {NULL, "{stem}.{dataset}.h5", "a.h5", "grid", 0, "a.grid.h5"},
    /* {stem} stops at the last dot; a leading dot is not an extension */
    {"o", "{stem}", "x/scene.v2.ply", "vertex", 2, "o/scene.v2"},
    {"o", "{stem}", "x/.hidden", "g", 2, "o/.hidden"},
    {"o", "{file}", "x/scene.v2.ply", "vertex", 2, "o/scene.v2.ply"},
    /* nested datasets flatten to one file name */
    {"o", "{stem}.{dataset}.h5", "f.h5", "/group/sub/grid", 0, "o/f.group_sub_grid.h5"},
    /* control characters of a dataset's name become '_' too */
    {"o", "{stem}.{dataset}.h5", "f.h5", "/nl\nname\t\x7f", 0, "o/f.nl_name__.h5"},
    /* {parent}: the folder's own name, "." for a bare file name */
    {"o", "{parent}-{stem}", "scenes/garden/point_cloud.ply", "vertex", 0,
     "o/garden-point_cloud"},
    {"o", "{parent}-{stem}", "a.h5", "g", 0, "o/.-a"},
    /* {relpath}: from the common folder, extension dropped, '/' as '_' */
    {"o", "{relpath}.{dataset}.h5", "scenes/garden/it_30000/point_cloud.ply", "vertex", 7,
     "o/garden_it_30000_point_cloud.vertex.h5"},
    {"o", "{relpath}", "scenes/garden/pc.ply", "vertex", 0, "o/scenes_garden_pc"},
    /* text around and between placeholders is kept; a brace that opens
       no placeholder is plain text */
    {"o", "run1/{stem}{x}-{dataset}", "a.h5", "g", 0, "o/run1/a{x}-g"},
};

static void test_output_path_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const name_case *c = &cases[i];
        char *got = cuplas_output_path(c->dir, c->tmpl, c->file, c->dataset, c->rel_at);
        assert_non_null(got);
        if (strcmp(got, c->want) != 0)
            fail_msg("case %zu: '%s' gave '%s', want '%s'", i, c->tmpl, got, c->want);
        free(got);
    }
}

static void test_ply_path(void **state)
{
    (void)state;
    static const char *const io[][2] = {
        {"o/a.grid.h5", "o/a.grid.ply"}, {"o/a.hdf5", "o/a.ply"},
        {"o/a.vertex", "o/a.vertex.ply"}, {"h5", "h5.ply"}, {".h5", ".h5.ply"},
    };
    for (size_t i = 0; i < sizeof io / sizeof *io; i++) {
        char *got = cuplas_output_ply_path(io[i][0]);
        assert_non_null(got);
        assert_string_equal(got, io[i][1]);
        free(got);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_output_path_table),
        cmocka_unit_test(test_ply_path),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
