/*
 * test_scene_bytes.c - the SOG preset (configs/sog.yaml) on the plant
 * scene earns its keep in compressed bytes (and the PlayCanvas SOG preset,
 * configs/playcanvas.yaml, in its own format, last below): the SOG-scheme images of the
 * sorted grid, lossless PNG, against the same images in a Morton order of
 * x, y, z (the strongest cheap baseline; `cuplas eval`'s "morton").
 *
 * Measured 2026-11-24: PNG bytes sorted / Morton 0.9273 on the plant and
 * 0.9379 on the tarot capture for the shipped config with 0.7.0's AND
 * polish (bench/results/2026-11-24-h200-exit/cpu); before it 0.9349 and
 * 0.9462 (weights 8 x,y,z, 1
 * colour, 1.5 log scale, 3 unit rotation; since 0.5.0 16-cell groups on
 * 0.2.0's short schedule: bench/results/2026-11-24-h200-tiles,
 * scenes-cpu); 0.9369 and 0.9481 with 0.4.0's default sort
 * (bench/results/2026-11-24-h100-local, scenes-cpu; 0.3.0's: 0.9369 and
 * 0.9486, h200-levers r13; 0.9434 and 0.9563 with 0.2.0's, and 0.9703
 * for SOG's own setting: 2026-11-24-cpu-scenes). The index is
 * deterministic (seeded, any thread count), so a ratio only moves with
 * the zlib build or the sort; the floor, issue 16's 5 % below Morton,
 * leaves 2.3 % (plant) and 1.2 % (tarot) for that.
 * PNG is the codec checked because it is fast (about 1 s for all four
 * orders); WebP at method 6 takes minutes and stays in the benchmark.
 *
 * Also: the per-image breakdown (`image_bytes`) adds up to the totals, and
 * colour, scale and rotation each beat Morton by a documented margin.
 *
 * Skipped without the shared scenes (shared/data/scenes/, or
 * $CUPLAS_SHARED_DATA/scenes/).
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tmpdir.h"
#include "clitest.h"
#include "shared_data.h"
#include "util/json.h"

#define SOG_YAML CUPLAS_SRCDIR "/configs/sog.yaml"

/* sorted / Morton PNG bytes of the shipped config must stay at or below
 * this on both captures: 5 % below Morton. */
#define PNG_RATIO_FLOOR 0.950

static int setup(void **state)
{
    return tu_fixture_new(state, CUPLAS_BUILDDIR "/tests/test_scene_bytes.XXXXXX");
}

static int teardown(void **state)
{
    tu_fixture_free(state);
    return 0;
}

static int64_t image_bytes(const cuplas_json *doc, const char *order, const char *image)
{
    const cuplas_json *o = cuplas_json_get(cuplas_json_get(doc, "image_bytes"), order);
    double b = cuplas_json_get_num(cuplas_json_get(o, "png"), image, -1);
    assert_true(b > 0);
    return (int64_t)b;
}

/* A shipped preset and what its eval block measures. */
typedef struct preset {
    const char *yaml, *scheme;
    int images;   /* the scheme's images an order */
} preset;

static const preset SOG = {SOG_YAML, "sog", 6};
static const preset PLAYCANVAS = {CUPLAS_SRCDIR "/configs/playcanvas.yaml", "playcanvas", 5};

/* Sort `scene` with a shipped preset on the CPU and evaluate its PNG
 * bytes; returns eval's JSON (the caller's to free) and the sorted /
 * Morton ratio in *ratio. The run's own eval step, turned on, measures
 * the same: the preset's eval block names its scheme. H: the grid's
 * height. */
static cuplas_json *sort_and_eval(fixture *f, const preset *p, const char *scene,
                                  const char *stem, int H, double *ratio)
{
    cuplas_json *doc = NULL;
    cuplas_error e;
    char cmd[1024], *js;

    cuplas_error_clear(&e);
    snprintf(cmd, sizeof cmd, "rm -rf out; \"$B\" run '%s' --set 'inputs=[{files: "
             "\"%s\"}]' --set output.dir=out --set output.ply=false "
             "--set backend.device=cpu --set logging.level=warn --set eval.enabled=true "
             "--set 'eval.codecs=[png]' --set sog.enabled=false", p->yaml, scene);
    assert_int_equal(tu_sh(f, "%s", cmd), 0);
    cuplas_json *man = NULL;
    const cuplas_json *ds, *step;
    assert_non_null(js = tu_slurp(f, "out/cuplas-manifest.json", NULL));
    assert_int_equal(cuplas_json_parse(js, strlen(js), &man, &e), 0);
    free(js);
    ds = cuplas_json_get(man, "datasets");
    assert_true(ds && ds->type == CUPLAS_JSON_ARRAY && ds->n == 1);
    assert_non_null(step = cuplas_json_get(&ds->items[0], "eval"));
    assert_string_equal(cuplas_json_get_str(step, "scheme", ""), p->scheme);
    const double step_ratio = cuplas_json_get_num(
        cuplas_json_get(cuplas_json_get(step, "ratios"), "morton"), "png", NAN);
    assert_null(cuplas_json_get(cuplas_json_get(step, "bytes"), "input"));
    assert_int_equal(tu_sh(f, "\"$B\" eval out/%s.vertex.h5 --scheme %s --codecs png --json",
                           stem, p->scheme),
                     0);
    assert_non_null(js = tu_slurp(f, "out.txt", NULL));
    assert_int_equal(cuplas_json_parse(js, strlen(js), &doc, &e), 0);
    free(js);
    assert_int_equal((int)cuplas_json_get_num(doc, "H", 0), H);
    assert_int_equal((int)cuplas_json_get_num(doc, "images", 0), p->images);
    *ratio = cuplas_json_get_num(cuplas_json_get(cuplas_json_get(doc, "ratios"), "morton"), "png",
                                 NAN);
    assert_true(step_ratio == *ratio);
    cuplas_json_free(man);
    print_message("%s, %s preset: PNG bytes sorted / Morton %.4f\n", stem, p->scheme, *ratio);
    return doc;
}

static void test_sog_preset_beats_morton_in_png(void **state)
{
    fixture *f = *state;
    cuplas_json *doc = NULL;
    double ratio;
    char plant[PATH_MAX];

    if (!tu_shared_path("scenes/plant.splat", plant, sizeof plant)) {
        skip();
        return;
    }
    /* the preset plans clean: its 13 weights match the 13 channels it
     * names (check once compared them with all 14 of the scene) */
    assert_int_equal(tu_sh(f, "\"$B\" check '" SOG_YAML "' --set 'inputs=[{files: \"%s\"}]' "
                           "--set output.dir=out", plant), 0);
    doc = sort_and_eval(f, &SOG, plant, "plant", 337, &ratio);   /* floor(sqrt(113648)) */
    assert_true(ratio <= PNG_RATIO_FLOOR);
    /* and it beats the file order and a random order by more */
    double vs_input = cuplas_json_get_num(
        cuplas_json_get(cuplas_json_get(doc, "ratios"), "input"), "png", NAN);
    assert_true(vs_input < ratio);

    /* the breakdown adds up, order by order */
    static const char *const names[6] = {"xyz_lo", "xyz_hi", "f_dc", "scale", "rot", "opacity"};
    static const char *const orders[2] = {"sorted", "morton"};
    for (int k = 0; k < 2; k++) {
        int64_t sum = 0;
        for (int i = 0; i < 6; i++)
            sum += image_bytes(doc, orders[k], names[i]);
        assert_int_equal(sum, (int64_t)cuplas_json_get_num(
                                  cuplas_json_get(cuplas_json_get(doc, "bytes"), orders[k]), "png",
                                  -1));
    }
    /* where the bytes are: the sorted attributes win (colour and scale by
     * about 10 % or more, rotation by over 25 %; measured 0.906, 0.827,
     * 0.744). The
     * position images still lose to Morton's runs of equal high bytes
     * (xyz_hi 2.25x, xyz_lo 1.07x): not asserted, so that a win there is
     * welcome */
    assert_true(image_bytes(doc, "sorted", "f_dc") < 0.95 * image_bytes(doc, "morton", "f_dc"));
    assert_true(image_bytes(doc, "sorted", "scale") < 0.95 * image_bytes(doc, "morton", "scale"));
    assert_true(image_bytes(doc, "sorted", "rot") < 0.80 * image_bytes(doc, "morton", "rot"));
    cuplas_json_free(doc);
}

/* The second capture: the same floor (issue 16 asks for it on more than
 * the plant). */
static void test_sog_preset_beats_morton_on_tarot(void **state)
{
    fixture *f = *state;
    double ratio;
    char tarot[PATH_MAX];

    if (!tu_shared_path("scenes/academic_tarot_cards.splat", tarot, sizeof tarot)) {
        skip();
        return;
    }
    cuplas_json_free(sort_and_eval(f, &SOG, tarot, "academic_tarot_cards", 338, &ratio));
    assert_true(ratio <= PNG_RATIO_FLOOR);
}

/* The PlayCanvas SOG preset on the plant: a filled grid (auto shape,
 * cropped: 2 of 113,648 splats dropped) whose five images beat
 * splat-transform's Morton order. Measured 2026-11-28 (bench/results/
 * 2026-11-28-cpu-playcanvas): PNG 0.9769, WebP (method 6, the format's
 * codec, not run here: a minute) 0.9779; the floor leaves 0.8 %. */
static void test_playcanvas_preset_beats_morton(void **state)
{
    fixture *f = *state;
    double ratio;
    char plant[PATH_MAX];

    if (!tu_shared_path("scenes/plant.splat", plant, sizeof plant)) {
        skip();
        return;
    }
    cuplas_json *doc = sort_and_eval(f, &PLAYCANVAS, plant, "plant", 282, &ratio);
    assert_int_equal((int)cuplas_json_get_num(doc, "W", 0), 403);
    assert_int_equal((int)cuplas_json_get_num(doc, "N", 0), 113646);
    assert_true(ratio <= 0.985);
    cuplas_json_free(doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_sog_preset_beats_morton_in_png, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sog_preset_beats_morton_on_tarot, setup, teardown),
        cmocka_unit_test_setup_teardown(test_playcanvas_preset_beats_morton, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
