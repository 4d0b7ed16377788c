/*
 * manifest_read.c - a run manifest read back (cuplas_manifest_read,
 * manifest.h): what `cuplas report`, `merge` and a resumed run see of an
 * earlier run. Apart from manifest.c, which builds and writes one: the
 * reader trusts nothing in the file. It refuses what it cannot do without
 * (the format and its version, a "datasets" array whose entries name
 * their input and status, a shard inside its count) and reads every other
 * member as optional: absent or of another type, it takes its default
 * (AND NaN, times 0, strings empty or NULL; an eval of another format is
 * left out).
 */
#define _GNU_SOURCE /* strdup */
#include "pipeline/manifest.h"
#include "pipeline/manifest_priv.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/json.h"

static char *slurp(const char *path, size_t *len, cuplas_error *err)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t n = 0, cap = 0;

    if (!f) {
        cuplas_error_set(err, CUPLAS_ERR_INPUT, "cannot open: %s", strerror(errno));
        return NULL;
    }
    for (;;) {
        if (cap - n < 4096) {
            char *p = realloc(buf, cap = cap ? 2 * cap : 65536);
            if (!p) {
                free(buf);
                fclose(f);
                cuplas_error_set(err, CUPLAS_ERR_NOMEM, "out of memory");
                return NULL;
            }
            buf = p;
        }
        size_t k = fread(buf + n, 1, cap - n - 1, f);
        n += k;
        if (k == 0)
            break;
    }
    fclose(f);
    buf[n] = '\0';
    *len = n;
    return buf;
}

static double num_or_nan(const cuplas_json *o, const char *k)
{
    return cuplas_json_get_num(o, k, NAN);
}

static int read_entry(const cuplas_json *o, cuplas_manifest_entry *e)
{
    const cuplas_json *shape = cuplas_json_get(o, "shape");

    if (!o || o->type != CUPLAS_JSON_OBJECT || !cuplas_json_get_str(o, "input", NULL) ||
        !cuplas_json_get_str(o, "status", NULL))
        return 1;
    snprintf(e->status, sizeof e->status, "%s", cuplas_json_get_str(o, "status", ""));
    snprintf(e->backend, sizeof e->backend, "%s", cuplas_json_get_str(o, "backend", ""));
    snprintf(e->dtype, sizeof e->dtype, "%s", cuplas_json_get_str(o, "dtype", ""));
    e->and_before = num_or_nan(o, "and_before");
    e->and_after = num_or_nan(o, "and_after");
    e->read_s = cuplas_json_get_num(o, "read_s", 0);
    e->prep_s = cuplas_json_get_num(o, "prep_s", 0);
    e->sort_s = cuplas_json_get_num(o, "sort_s", 0);
    e->write_s = cuplas_json_get_num(o, "write_s", 0);
    e->total_s = cuplas_json_get_num(o, "total_s", 0);
    e->sog_bytes = cuplas_json_get_int(o, "sog_bytes", 0, CUPLAS_JSON_INT_MAX, 0);
    if (shape && shape->type == CUPLAS_JSON_ARRAY && shape->n == 3)
        for (int k = 0; k < 3; k++)
            e->shape[k] = cuplas_json_int(&shape->items[k], 0, CUPLAS_JSON_INT_MAX, 0);
    if (cuplas_manifest__dup(&e->input, cuplas_json_get_str(o, "input", NULL)) ||
        cuplas_manifest__dup(&e->dataset, cuplas_json_get_str(o, "dataset", NULL)) ||
        cuplas_manifest__dup(&e->output, cuplas_json_get_str(o, "output", NULL)) ||
        cuplas_manifest__dup(&e->error, cuplas_json_get_str(o, "error", NULL)) ||
        cuplas_manifest__dup(&e->device, cuplas_json_get_str(o, "device", NULL)) ||
        cuplas_manifest__dup(&e->preview, cuplas_json_get_str(o, "preview", NULL)))
        return -1;
    const cuplas_json *ev = cuplas_json_get(o, "eval");
    if (ev && ev->type == CUPLAS_JSON_OBJECT) {
        if (!(e->eval = malloc(sizeof *e->eval)))
            return -1;
        if (cuplas_eval_result_from_json(ev, e->eval) != 0) {
            free(e->eval);   /* an eval of another format: left out */
            e->eval = NULL;
        }
    }
    return 0;
}

/* A member for an error line: its number as written, or what it is instead. */
static const char *member_text(const cuplas_json *obj, const char *key, char *buf, size_t n)
{
    const cuplas_json *v = cuplas_json_get(obj, key);
    if (!v)
        return "missing";
    if (v->type != CUPLAS_JSON_NUMBER)
        return "not a number";
    snprintf(buf, n, "%.17g", v->number);
    return buf;
}

int cuplas_manifest_read(const char *path, cuplas_manifest *m, cuplas_error *err)
{
    cuplas_json *doc = NULL;
    const cuplas_json *shard, *slurm, *list;
    size_t len = 0;
    char *text = NULL;
    int rc = 0;

    memset(m, 0, sizeof *m);
    if (!(text = slurp(path, &len, err)))
        CUPLAS_TRY(err->code ? (int)err->code : CUPLAS_ERR_INPUT);
    CUPLAS_TRY(cuplas_json_parse(text, len, &doc, err));
    if (strcmp(cuplas_json_get_str(doc, "format", ""), "cuplas-manifest"))
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "not a cuplas manifest (no \"format\": "
                    "\"cuplas-manifest\")");
    if (cuplas_json_get_num(doc, "format_version", 0) != CUPLAS_MANIFEST_FORMAT_VERSION)
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "manifest format_version %g (this cuplas reads %d)",
                    cuplas_json_get_num(doc, "format_version", 0),
                    CUPLAS_MANIFEST_FORMAT_VERSION);
    if (cuplas_manifest__dup(&m->path, path) ||
        cuplas_manifest__dup(&m->version,
                                  cuplas_json_get_str(doc, "cuplas_version", NULL)) ||
        cuplas_manifest__dup(&m->host, cuplas_json_get_str(doc, "host", NULL)) ||
        cuplas_manifest__dup(&m->config, cuplas_json_get_str(doc, "config", NULL)))
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
    snprintf(m->start_time, sizeof m->start_time, "%s",
             cuplas_json_get_str(doc, "start_time", ""));
    snprintf(m->end_time, sizeof m->end_time, "%s", cuplas_json_get_str(doc, "end_time", ""));
    m->start_unix = cuplas_json_get_num(doc, "start_unix", 0);
    m->end_unix = cuplas_json_get_num(doc, "end_unix", 0);
    m->pid = (int)cuplas_json_get_int(doc, "pid", 0, INT_MAX, 0);
    m->exit_code = (int)cuplas_json_get_int(doc, "exit_code", INT_MIN, INT_MAX, -1);
    const cuplas_json *intr = cuplas_json_get(doc, "interrupted");
    m->interrupted = intr && intr->type == CUPLAS_JSON_BOOL && intr->boolean;
    m->preview_rel = !strcmp(cuplas_json_get_str(doc, "preview_base", ""), "manifest");
    /* absent in manifests from before the start marker: those were
       written only when their run ended */
    const cuplas_json *fin = cuplas_json_get(doc, "finished");
    m->finished = !fin || fin->type != CUPLAS_JSON_BOOL || fin->boolean;
    if (!m->finished)   /* a marker has none, whatever the file says */
        m->exit_code = -1;
    if ((shard = cuplas_json_get(doc, "shard")) && shard->type == CUPLAS_JSON_OBJECT) {
        m->shard.index = (int)cuplas_json_get_int(shard, "index", 0, INT_MAX, -1);
        m->shard.count = (int)cuplas_json_get_int(shard, "count", 1, INT_MAX, 0);
        if (m->shard.count < 1 || m->shard.index < 0 || m->shard.index >= m->shard.count) {
            char ix[32], ct[32]; /* as the file has them, not the defaults */
            CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "bad \"shard\" (index %s, count %s)",
                        member_text(shard, "index", ix, sizeof ix),
                        member_text(shard, "count", ct, sizeof ct));
        }
    }
    slurm = cuplas_json_get(doc, "slurm");
    for (int k = 0; k < 5; k++)
        if (cuplas_manifest__dup(&m->slurm[k], cuplas_json_get_str(
                                          slurm, cuplas_manifest__slurm_keys[k], NULL)))
            CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
    if (!(list = cuplas_json_get(doc, "datasets")) || list->type != CUPLAS_JSON_ARRAY)
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "no \"datasets\" array");
    for (int i = 0; i < list->n; i++) {
        cuplas_manifest_entry *e = cuplas_manifest__new_entry(m);
        int r = e ? read_entry(&list->items[i], e) : -1;
        if (r < 0)
            CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
        if (r > 0)
            CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "datasets[%d]: needs \"input\" and \"status\"",
                        i);
    }
    cuplas_json_free(doc);
    free(text);
    return 0;
fail:
    cuplas_json_free(doc);
    free(text);
    cuplas_manifest_free(m);
    cuplas_error_where(err, "%s", path);
    return rc;
}
