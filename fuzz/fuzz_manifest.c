/*
 * fuzz_manifest.c - libFuzzer target: the run-manifest reader on arbitrary
 * bytes (`cuplas report` and the shard merge read manifests that a killed
 * task or a hand edit may have damaged).
 *
 * Every input must end in a loaded manifest or a one-line error, never a
 * crash or a leak. A manifest that loads must also survive the round trip
 * through its own writer: printed, read back, the same entries with the
 * same inputs and statuses; and it must merge with itself.
 *
 *   make fuzz && fuzz/fuzz_manifest fuzz/corpus/manifest
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pipeline/manifest.h"
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int same_text(const char *a, const char *b)
{
    return (!a && !b) || (a && b && !strcmp(a, b));
}

/* The round trip: print m, read it back, compare what `report` shows. */
static void round_trip(const cuplas_manifest *m)
{
    char path[] = "/tmp/fuzz_manifest_rt.XXXXXX";
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return;
    cuplas_manifest_print(f, m);
    fclose(f);
    if (!text || fuzz_file(path, 0, text, len) != 0) {
        free(text);
        return;
    }
    cuplas_manifest back;
    cuplas_error err = { 0 };
    if (cuplas_manifest_read(path, &back, &err) != 0)
        abort();   /* the writer's own output does not load */
    if (back.n != m->n || back.shard.index != m->shard.index ||
        back.shard.count != m->shard.count || back.exit_code != m->exit_code)
        abort();
    for (int i = 0; i < m->n; i++)
        if (!same_text(back.v[i].input, m->v[i].input) ||
            !same_text(back.v[i].dataset, m->v[i].dataset) ||
            strcmp(back.v[i].status, m->v[i].status))
            abort();
    cuplas_manifest_free(&back);
    unlink(path);
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[] = "/tmp/fuzz_manifest.XXXXXX";
    if (fuzz_file(path, 0, data, size) != 0)
        return 0;
    cuplas_manifest m;
    cuplas_error err = { 0 };
    if (cuplas_manifest_read(path, &m, &err) == 0) {
        round_trip(&m);
        cuplas_manifest two[2] = { m, m };
        cuplas_merged mg;
        cuplas_error merr = { 0 };
        if (cuplas_manifest_merge(two, 2, &mg, &merr) == 0)
            cuplas_merged_free(&mg);
        else if (strchr(merr.msg, '\n') || !merr.msg[0])
            abort();
        cuplas_manifest_free(&m);
    } else if (strchr(err.msg, '\n') || strchr(err.where, '\n') || !err.msg[0]) {
        abort();   /* every error is one non-empty line */
    }
    unlink(path);
    return 0;
}
