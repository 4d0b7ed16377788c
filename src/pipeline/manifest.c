/*
 * manifest.c - build and write run manifests (manifest.h); reading one
 * back is manifest_read.c, merging many of them manifest_merge.c.
 *
 * Design fact: a manifest is written after the workers stopped, from the
 * runner's result records, so it never races with a job; it is published
 * like an output (temp file, fsync, rename), so a task killed while
 * writing it leaves the previous manifest of that shard intact.
 */
#define _GNU_SOURCE /* strdup, strndup */
#include "cuplas_build.h"
#include "util/fsutil.h"
#include "pipeline/manifest.h"
#include "pipeline/manifest_priv.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "io/h5_read.h"
#include "io/h5_result.h"
#include "io/publish.h"
#include "pipeline/output_name.h"
#include "pipeline/stages.h"
#include "util/json.h"


static const char *const slurm_vars[5] = {
    "SLURM_JOB_ID", "SLURM_ARRAY_JOB_ID", "SLURM_ARRAY_TASK_ID", "SLURM_RESTART_COUNT",
    "SLURMD_NODENAME",
};
const char *const cuplas_manifest__slurm_keys[5] = {
    "job_id", "array_job_id", "array_task_id", "restart_count", "node",
};

/* ---------------------------------------------------------------- helpers */

static double wall_now(char iso[40])
{
    struct timespec ts;
    struct tm tm;
    char date[32];
    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(iso, 40, "%.24s.%03dZ", date, (int)(ts.tv_nsec / 1000000));
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static char *dup0(const char *s)
{
    return s ? strdup(s) : NULL;
}

int cuplas_manifest__dup(char **dst, const char *s)
{
    *dst = dup0(s);
    return s && !*dst ? -1 : 0;
}

cuplas_manifest_entry *cuplas_manifest__new_entry(cuplas_manifest *m)
{
    if (m->n == m->cap) {
        int cap = m->cap ? 2 * m->cap : 16;
        cuplas_manifest_entry *v = realloc(m->v, (size_t)cap * sizeof *v);
        if (!v)
            return NULL;
        m->v = v;
        m->cap = cap;
    }
    cuplas_manifest_entry *e = &m->v[m->n++];
    memset(e, 0, sizeof *e);
    e->and_before = e->and_after = NAN;
    return e;
}


/* ------------------------------------------------------------- building */

int cuplas_manifest_begin(cuplas_manifest *m, const char *config, const cuplas_shard *shard,
                          cuplas_error *err)
{
    char host[256] = "";
    int rc = 0;

    memset(m, 0, sizeof *m);
    if (gethostname(host, sizeof host - 1) != 0)
        snprintf(host, sizeof host, "unknown");
    m->start_unix = wall_now(m->start_time);
    m->shard = *shard;
    m->pid = (int)getpid();
    m->exit_code = -1;
    if (cuplas_manifest__dup(&m->version, PACKAGE_VERSION) ||
        cuplas_manifest__dup(&m->host, host) || cuplas_manifest__dup(&m->config, config))
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
    for (int k = 0; k < 5; k++) {
        const char *v = getenv(slurm_vars[k]);
        if (v && *v && !(m->slurm[k] = strdup(v)))
            CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
    }
    return 0;
fail:
    cuplas_manifest_free(m);
    return rc;
}

/* A skipped job's output: its eval attribute, its preview, if any (one
 * at least as new as the result: an older one is an earlier run's), and
 * its SOG folder's bytes where this run asked for one (the rerun checked
 * it against the `sog` attribute). */
static int skipped_extras(const cuplas_job *j, cuplas_manifest_entry *e, cuplas_error *err)
{
    char *js = cuplas_h5_output_str(j->output, j->dataset, "eval");
    char *sog = j->sog_out ? cuplas_h5_output_str(j->output, j->dataset, "sog") : NULL;
    const int64_t bytes = cuplas_job_sog_bytes(sog);
    char *png = cuplas_output_beside(j->output, ".png");
    cuplas_json *doc = NULL;
    cuplas_error perr;
    int rc = 0;

    cuplas_error_clear(&perr);
    if (!png)
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
    if (js && cuplas_json_parse(js, strlen(js), &doc, &perr) == 0) {
        if (!(e->eval = malloc(sizeof *e->eval)))
            CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
        if (cuplas_eval_result_from_json(doc, e->eval) != 0)
            free(e->eval), e->eval = NULL;
    }
    if (cuplas_file_as_new(png, j->output))
        e->preview = png, png = NULL;
    if (bytes > 0)
        e->sog_bytes = bytes;
fail:
    cuplas_json_free(doc);
    free(js);
    free(sog);
    free(png);
    return rc;
}

int cuplas_manifest_add_results(cuplas_manifest *m, const cuplas_jobs *jobs,
                                const cuplas_job_result *results, const cuplas_worker *workers,
                                cuplas_error *err)
{
    char line[CUPLAS_JOB_LINE_LEN], device[256], backend[8];
    int rc = 0;

    for (int i = 0; i < jobs->n; i++) {
        const cuplas_job *j = &jobs->v[i];
        const cuplas_job_result *r = &results[i];
        cuplas_manifest_entry *e = cuplas_manifest__new_entry(m);
        const char *dev = r->worker >= 0 ? workers[r->worker].name : NULL;

        if (!e)
            CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
        snprintf(e->status, sizeof e->status, "%s", cuplas_job_state_name(r->state));
        if (r->state == CUPLAS_JOB_FAILED || r->state == CUPLAS_JOB_CANCELLED)
            cuplas_job_error_line(jobs, j, &r->err, line, sizeof line);
        if (r->state == CUPLAS_JOB_DONE) {
            e->and_before = r->and_before;
            e->and_after = r->and_after;
            snprintf(e->backend, sizeof e->backend, "%s", r->backend);
        } else if (r->state == CUPLAS_JOB_SKIPPED &&
                   cuplas_h5_output_metrics(j->output, j->dataset, &e->and_before,
                                            &e->and_after, backend, sizeof backend, device,
                                            sizeof device) == 0) {
            /* the metrics of the output that made this job unnecessary */
            snprintf(e->backend, sizeof e->backend, "%s", backend);
            dev = device;
            CUPLAS_TRY(skipped_extras(j, e, err));
        }
        if (r->state != CUPLAS_JOB_DONE && r->state != CUPLAS_JOB_SKIPPED &&
            r->state != CUPLAS_JOB_CANCELLED)
            dev = NULL;
        e->read_s = r->read_s;
        e->prep_s = r->prep_s;
        e->sort_s = r->sort_s;
        e->write_s = r->write_s;
        e->total_s = r->total_s;
        if (r->state == CUPLAS_JOB_DONE)
            e->sog_bytes = r->sog_bytes;
        if (!j->err.code) {
            e->shape[0] = j->H;
            e->shape[1] = j->W;
            e->shape[2] = j->C;
            snprintf(e->dtype, sizeof e->dtype, "%s", j->dtype);
        }
        if (r->state == CUPLAS_JOB_DONE && r->eval) {
            if (!(e->eval = malloc(sizeof *e->eval)))
                CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
            *e->eval = *r->eval;
        }
        if ((r->state == CUPLAS_JOB_DONE && cuplas_manifest__dup(&e->preview, r->preview)) ||
            cuplas_manifest__dup(&e->input, j->file) ||
            cuplas_manifest__dup(&e->dataset, j->dataset) ||
            cuplas_manifest__dup(&e->output, j->output) ||
            cuplas_manifest__dup(&e->device, dev && *dev ? dev : NULL) ||
            cuplas_manifest__dup(&e->error, r->state == CUPLAS_JOB_FAILED ||
                                                r->state == CUPLAS_JOB_CANCELLED ? line : NULL))
            CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
    }
fail:
    return rc;
}

int cuplas_manifest_start(const cuplas_manifest *m, const cuplas_jobs *jobs, const char *path,
                          cuplas_error *err)
{
    /* a shallow copy whose entries borrow the jobs' strings: printed, then
       only the array is freed */
    cuplas_manifest marker = *m;
    int rc = 0;

    marker.finished = 0;
    marker.n = marker.cap = 0;
    if (!(marker.v = calloc((size_t)jobs->n + 1, sizeof *marker.v)))
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
    for (int i = 0; i < jobs->n; i++) {
        const cuplas_job *j = &jobs->v[i];
        cuplas_manifest_entry *e = &marker.v[marker.n++];
        e->input = j->file;
        e->dataset = j->dataset;
        e->output = j->output;
        snprintf(e->status, sizeof e->status, "pending");
        e->and_before = e->and_after = NAN;
        if (!j->err.code) {
            e->shape[0] = j->H;
            e->shape[1] = j->W;
            e->shape[2] = j->C;
            snprintf(e->dtype, sizeof e->dtype, "%s", j->dtype);
        }
    }
    rc = cuplas_manifest_write(&marker, path, err);
fail:
    free(marker.v);
    return rc;
}

void cuplas_manifest_finish(cuplas_manifest *m, int exit_code, int interrupted)
{
    m->finished = 1;
    m->end_unix = wall_now(m->end_time);
    m->exit_code = exit_code;
    m->interrupted = interrupted != 0;
}

int cuplas_manifest_absent(const char *path)
{
    struct stat st;
    return stat(path, &st) != 0 && (errno == ENOENT || errno == ENOTDIR ||
                                    errno == ENAMETOOLONG || errno == ELOOP);
}

char *cuplas_manifest_path(const char *dir, const cuplas_shard *shard)
{
    char name[64], *p = NULL;
    const char *d = dir && *dir ? dir : ".";

    if (shard->count > 0)
        snprintf(name, sizeof name, "cuplas-manifest.%d-of-%d.json", shard->index,
                 shard->count);
    else
        snprintf(name, sizeof name, "cuplas-manifest.json");
    if (asprintf(&p, "%s%s%s", d, d[strlen(d) - 1] == '/' ? "" : "/", name) < 0)
        return NULL;
    return p;
}

/* -------------------------------------------------------------- writing */

static void key(FILE *f, const char *k, int first)
{
    fputs(first ? "" : ", ", f);
    cuplas_json_write_str(f, k);
    fputs(": ", f);
}

static void print_entry(FILE *f, const cuplas_manifest_entry *e)
{
    fputs("    {", f);
    key(f, "input", 1), cuplas_json_write_str(f, e->input);
    key(f, "dataset", 0), cuplas_json_write_str(f, e->dataset);
    key(f, "output", 0), cuplas_json_write_str(f, e->output);
    key(f, "status", 0), cuplas_json_write_str(f, e->status);
    key(f, "error", 0), cuplas_json_write_str(f, e->error);
    fputs(",\n     ", f);
    key(f, "and_before", 1), cuplas_json_write_num(f, e->and_before);
    key(f, "and_after", 0), cuplas_json_write_num(f, e->and_after);
    key(f, "read_s", 0), cuplas_json_write_num(f, e->read_s);
    key(f, "prep_s", 0), cuplas_json_write_num(f, e->prep_s);
    key(f, "sort_s", 0), cuplas_json_write_num(f, e->sort_s);
    key(f, "write_s", 0), cuplas_json_write_num(f, e->write_s);
    key(f, "total_s", 0), cuplas_json_write_num(f, e->total_s);
    fputs(",\n     ", f);
    key(f, "backend", 1), cuplas_json_write_str(f, e->backend[0] ? e->backend : NULL);
    key(f, "device", 0), cuplas_json_write_str(f, e->device);
    key(f, "shape", 0);
    if (e->shape[0] > 0)
        fprintf(f, "[%lld, %lld, %lld]", (long long)e->shape[0], (long long)e->shape[1],
                (long long)e->shape[2]);
    else
        fputs("null", f);
    key(f, "dtype", 0), cuplas_json_write_str(f, e->dtype[0] ? e->dtype : NULL);
    /* only where run's eval step, output.preview or sog.enabled made them */
    if (e->preview)
        key(f, "preview", 0), cuplas_json_write_str(f, e->preview);
    if (e->sog_bytes > 0)
        key(f, "sog_bytes", 0), fprintf(f, "%lld", (long long)e->sog_bytes);
    if (e->eval) {
        fputs(",\n     ", f);
        key(f, "eval", 1), cuplas_eval_result_json(f, e->eval);
    }
    fputs("}", f);
}

void cuplas_manifest_print(FILE *f, const cuplas_manifest *m)
{
    int n[5] = {0};
    double sort_s = 0;
    static const char *const names[5] = {"pending", "done", "skipped", "failed", "cancelled"};

    for (int i = 0; i < m->n; i++) {
        for (int k = 0; k < 5; k++)
            n[k] += !strcmp(m->v[i].status, names[k]);
        if (!strcmp(m->v[i].status, "done"))
            sort_s += m->v[i].sort_s;
    }
    fprintf(f, "{\n  \"format\": \"cuplas-manifest\", \"format_version\": %d,\n",
            CUPLAS_MANIFEST_FORMAT_VERSION);
    if (m->preview_rel)
        fputs("  \"preview_base\": \"manifest\",\n", f);
    fputs("  \"cuplas_version\": ", f), cuplas_json_write_str(f, m->version);
    fputs(", \"host\": ", f), cuplas_json_write_str(f, m->host);
    fprintf(f, ", \"pid\": %d,\n  \"config\": ", m->pid), cuplas_json_write_str(f, m->config);
    /* a start marker has no end, no exit code and no wall time: null */
    fputs(",\n  \"start_time\": ", f), cuplas_json_write_str(f, m->start_time);
    fputs(", \"end_time\": ", f), cuplas_json_write_str(f, m->finished ? m->end_time : NULL);
    fputs(",\n  \"start_unix\": ", f), cuplas_json_write_num(f, m->start_unix);
    fputs(", \"end_unix\": ", f), cuplas_json_write_num(f, m->finished ? m->end_unix : NAN);
    if (m->shard.count > 0)
        fprintf(f, ",\n  \"shard\": {\"index\": %d, \"count\": %d}", m->shard.index,
                m->shard.count);
    else
        fputs(",\n  \"shard\": null", f);
    fputs(",\n  \"slurm\": {", f);
    for (int k = 0; k < 5; k++)
        key(f, cuplas_manifest__slurm_keys[k], k == 0), cuplas_json_write_str(f, m->slurm[k]);
    fputs("},\n  \"finished\": ", f);
    fputs(m->finished ? "true" : "false", f);
    if (m->finished)
        fprintf(f, ", \"exit_code\": %d", m->exit_code);
    else
        fputs(", \"exit_code\": null", f);
    fprintf(f, ", \"interrupted\": %s,\n", m->interrupted ? "true" : "false");
    fprintf(f, "  \"totals\": {\"jobs\": %d, \"done\": %d, \"skipped\": %d, \"failed\": %d, "
            "\"cancelled\": %d, \"pending\": %d, \"sort_s\": ", m->n, n[1], n[2], n[3], n[4],
            n[0]);
    cuplas_json_write_num(f, sort_s);
    fputs(", \"wall_s\": ", f);
    cuplas_json_write_num(f, m->finished ? m->end_unix - m->start_unix : NAN);
    fputs("},\n  \"datasets\": [", f);
    for (int i = 0; i < m->n; i++) {
        fputs(i ? ",\n" : "\n", f);
        print_entry(f, &m->v[i]);
    }
    fputs(m->n ? "\n  ]\n}\n" : "]\n}\n", f);
}

/*
 * file as a path from folder dir: relative where it lies in or below dir,
 * else absolute; malloc'd, NULL when out of memory. Both are resolved
 * (realpath) so that "out", "./out/" and a link to it agree; a file that
 * cannot be resolved (gone since) is made absolute from the working folder.
 */
static char *path_from_dir(const char *dir, const char *file)
{
    char *d = realpath(dir, NULL), *p = realpath(file, NULL), *out = NULL;
    size_t n = d ? strlen(d) : 0;

    if (!p) {
        char cwd[PATH_MAX];
        if (file[0] == '/' || !getcwd(cwd, sizeof cwd))
            out = strdup(file);
        else if (asprintf(&out, "%s/%s", cwd, file) < 0)
            out = NULL;
    } else if (d && !strncmp(p, d, n) && p[n] == '/') {
        out = strdup(p + n + (n == 1 ? 0 : 1));   /* dir "/": p is "/x" */
    } else {
        out = p, p = NULL;
    }
    free(d);
    free(p);
    return out;
}

/* m's previews rewritten relative to dir into a shallow copy (entries
 * borrowed, previews malloc'd: free with free_previews). */
static int rebase_previews(const cuplas_manifest *m, const char *dir, cuplas_manifest *copy,
                           cuplas_error *err)
{
    int rc = 0;

    *copy = *m;
    copy->preview_rel = 1;
    if (!(copy->v = calloc((size_t)m->n + 1, sizeof *copy->v)))
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
    for (int i = 0; i < m->n; i++) {
        copy->v[i] = m->v[i];
        if (m->v[i].preview && !(copy->v[i].preview = path_from_dir(dir, m->v[i].preview)))
            CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
    }
fail:
    return rc;
}

static void free_previews(cuplas_manifest *copy)
{
    for (int i = 0; copy->v && i < copy->n; i++)
        free(copy->v[i].preview);
    free(copy->v);
}

int cuplas_manifest_write(const cuplas_manifest *m, const char *path, cuplas_error *err)
{
    char *tmp = NULL, *dir = NULL;
    const char *slash = strrchr(path, '/');
    FILE *f = NULL;
    cuplas_manifest rebased;
    int rc = 0;

    memset(&rebased, 0, sizeof rebased);
    if (slash && slash != path) {
        if (!(dir = strndup(path, (size_t)(slash - path))))
            CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
        CUPLAS_TRY(cuplas_mkdir_p(dir, err));
    }
    /* after mkdir: realpath needs the folder */
    if (!m->preview_rel) {
        CUPLAS_TRY(rebase_previews(m, dir ? dir : slash ? "/" : ".", &rebased, err));
        m = &rebased;
    }
    if (!(tmp = cuplas_tmp_create(path, err))) {
        rc = err->code ? (int)err->code : CUPLAS_ERR_OUTPUT;
        goto fail;
    }
    if (!(f = fopen(tmp, "w")))
        CUPLAS_FAIL(err, CUPLAS_ERR_OUTPUT, "cannot write %s: %s", tmp, strerror(errno));
    cuplas_manifest_print(f, m);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        f = NULL;
        CUPLAS_FAIL(err, CUPLAS_ERR_OUTPUT, "cannot write %s: %s", tmp, strerror(errno));
    }
    f = NULL;
    CUPLAS_TRY(cuplas_tmp_publish(tmp, path, 1, err));
    free(tmp);
    tmp = NULL;
fail:
    if (f)
        fclose(f);
    if (tmp) {
        unlink(tmp);
        free(tmp);
    }
    free(dir);
    free_previews(&rebased);
    if (rc)
        cuplas_error_where(err, "%s", path);
    return rc;
}

char *cuplas_manifest_preview_path(const cuplas_manifest *m, const cuplas_manifest_entry *e)
{
    const char *slash = m->path ? strrchr(m->path, '/') : NULL;
    const char *base;
    char *p = NULL;
    int dlen = slash ? (int)(slash - m->path) : 0;

    if (!e->preview)
        return NULL;
    if (e->preview[0] == '/' || (!m->preview_rel && access(e->preview, F_OK) == 0))
        return strdup(e->preview);
    base = m->preview_rel ? e->preview
                          : (strrchr(e->preview, '/') ? strrchr(e->preview, '/') + 1 : e->preview);
    if (slash ? asprintf(&p, "%.*s/%s", dlen, dlen ? m->path : "", base) < 0
              : !(p = strdup(base)))
        return NULL;
    if (!m->preview_rel && access(p, F_OK) != 0) {   /* not there either: as written */
        free(p);
        return strdup(e->preview);
    }
    return p;
}

void cuplas_manifest_free(cuplas_manifest *m)
{
    for (int i = 0; i < m->n; i++) {
        cuplas_manifest_entry *e = &m->v[i];
        free(e->input);
        free(e->dataset);
        free(e->output);
        free(e->error);
        free(e->device);
        free(e->eval);
        free(e->preview);
    }
    free(m->v);
    free(m->path);
    free(m->version);
    free(m->host);
    free(m->config);
    for (int k = 0; k < 5; k++)
        free(m->slurm[k]);
    memset(m, 0, sizeof *m);
}
