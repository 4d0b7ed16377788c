/*
 * jobs.c - from inputs[] to an ordered, deduplicated list of jobs.
 *
 * Design fact: planning never fails because of one input. A pattern with
 * no match, an unreadable file or a missing dataset is recorded on a job
 * (err) and the list goes on; only two jobs publishing the same output, or
 * an output that would replace its job's input (or a file that is not a
 * regular one), is a config error, since running it would destroy data
 * (those checks are in jobs_check.c).
 * The resume identity names everything that shapes a result (the input's
 * bytes, by size and mtime, and the sort parameters with the seed), so a
 * rerun skips exactly the outputs that would come out the same.
 */
#define _GNU_SOURCE /* realpath, strdup */
#include "pipeline/jobs.h"

#include <fnmatch.h>
#include <glob.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/quantize.h"
#include "eval/evaluate.h"
#include "io/h5_list.h"
#include "io/h5_read.h"
#include "io/h5_result.h"
#include "io/publish.h"
#include "io/ply.h"
#include "io/scene.h"
#include "io/sog_write.h"
#include "pipeline/fit_plan.h"
#include "pipeline/output_name.h"
#include "pipeline/probe_cache.h"
#include "util/fsutil.h"
#include "util/sysmem.h"

/* ---------------------------------------------------------------- helpers */

void cuplas_fnv1a_hex(const char *s, char out[17])
{
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        h ^= *p;
        h *= UINT64_C(0x100000001b3);
    }
    snprintf(out, 17, "%016" PRIx64, h);
}

static int has_magic(const char *s)
{
    return strpbrk(s, "*?[") != NULL;
}

/* The part of the identity that comes from the config: params and seed. */
static void config_hash(const cuplas_config *cfg, char out[17])
{
    char *yaml = cuplas_config_params_to_yaml(cfg);
    size_t n = (yaml ? strlen(yaml) : 0) + 64;
    char *text = malloc(n);
    if (text) {
        snprintf(text, n, "%s\nseed=%" PRIu64 "\n", yaml ? yaml : "", cfg->sort.seed);
        cuplas_fnv1a_hex(text, out);
    } else {
        snprintf(out, 17, "%s", "0000000000000000");
    }
    free(text);
    free(yaml);
}

/* ------------------------------------------------------------- job list */

static cuplas_job *new_job(cuplas_jobs *jobs, const char *file, const char *dataset,
                           int input, int line, cuplas_error *err)
{
    if (jobs->n == jobs->cap) {
        int cap = jobs->cap ? 2 * jobs->cap : 16;
        cuplas_job *v = realloc(jobs->v, (size_t)cap * sizeof *v);
        if (!v) {
            cuplas_error_set(err, CUPLAS_ERR_NOMEM, "out of memory");
            return NULL;
        }
        jobs->v = v;
        jobs->cap = cap;
    }
    cuplas_job *j = &jobs->v[jobs->n];
    char real[PATH_MAX];
    memset(j, 0, sizeof *j);
    j->input = input;
    j->line = line;
    j->file = strdup(file);
    j->real = strdup(realpath(file, real) ? real : file);
    j->dataset = dataset ? strdup(dataset) : NULL;
    if (!j->file || !j->real || (dataset && !j->dataset)) {
        free(j->file);
        free(j->real);
        free(j->dataset);
        cuplas_error_set(err, CUPLAS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    jobs->n++;
    return j;
}

static void free_job(cuplas_job *j)
{
    free(j->file);
    free(j->real);
    free(j->dataset);
    free(j->output);
    free(j->identity);
    free(j->ply_out);
    free(j->preview_out);
    free(j->sog_out);
    free(j->use);
    free(j->act);
    free(j->unit);
    free(j->sign);
    free(j->group);
}

void cuplas_jobs_free(cuplas_jobs *jobs)
{
    for (int i = 0; i < jobs->n; i++)
        free_job(&jobs->v[i]);
    free(jobs->v);
    memset(jobs, 0, sizeof *jobs);
}

/* "12.3 GiB" or "45.6 MiB". */
static const char *human_bytes(double b, char buf[32])
{
    if (b >= 1073741824.0)
        snprintf(buf, 32, "%.1f GiB", b / 1073741824.0);
    else
        snprintf(buf, 32, "%.1f MiB", b / 1048576.0);
    return buf;
}

/*
 * A grid that can never fit is refused here, before anything is
 * allocated: the job's peak host memory against the machine (RAM, or the
 * cgroup's limit), and for a CPU run the sort's part against
 * backend.memory_limit_mb, as stage_sort admits it. The peak: the input as
 * stored and the result being encoded (about as large, plus its index),
 * the features in double, the sort's three int16 grids and the index.
 */
static void check_memory(cuplas_jobs *jobs, cuplas_job *j, const cuplas_config *cfg,
                         size_t elem)
{
    double N = (double)j->H * (double)j->W;
    int nuse = cfg->channels.use ? cfg->channels.nuse : (int)j->C;
    double sort = N * (8.0 * nuse + 6.0 * cuplas_padded_channels(nuse) + 16);
    double need = sort + N * (2.0 * (double)j->C * (double)elem + 8);
    if (cfg->sog.enabled)   /* the SOG step's channels as doubles, twice */
        need += N * 16.0 * (double)(j->C < 59 ? j->C : 59);
    double cap = (double)cfg->backend.memory_limit_mb * 1048576.0;
    char a[32], b[32];

    if (!jobs->host_limit_known) {
        jobs->host_limit = cuplas_host_memory_limit(&jobs->host_limit_what);
        jobs->host_limit_known = 1;
    }
    if (jobs->host_limit && need > (double)jobs->host_limit)
        cuplas_error_set(&j->err, CUPLAS_ERR_NOMEM, "a %lld x %lld x %lld %s grid needs %s of "
                         "host memory, more than the %s of %s", (long long)j->H,
                         (long long)j->W, (long long)j->C, j->dtype, human_bytes(need, a),
                         human_bytes((double)jobs->host_limit, b), jobs->host_limit_what);
    else if (cap > 0 && cfg->backend.device == CUPLAS_DEVICE_CPU && sort > cap)
        cuplas_error_set(&j->err, CUPLAS_ERR_NOMEM, "needs %.0f MiB on the CPU, over "
                         "backend.memory_limit_mb = %d", sort / 1048576.0,
                         cfg->backend.memory_limit_mb);
    else
        return;
    cuplas_error_where(&j->err, "%s:%s", j->file, j->dataset);
}

/* Probe shape and type, stat the file, and fill output and identity. */
static int plan_job(cuplas_jobs *jobs, cuplas_job *j, const cuplas_config *cfg,
                    const char *output, const char *hash, cuplas_error *err)
{
    cuplas_h5grid g;
    struct stat st;
    char shape[96];
    int rc = 0;

    j->output = output ? strdup(output)
                       : cuplas_output_path(cfg->output.dir, cfg->output.name, j->file, j->dataset,
                                     j->rel_at);
    if (!j->output)
        return cuplas_error_set(err, CUPLAS_ERR_NOMEM, "out of memory");
    j->scene = cuplas_ply_is_scene_path(j->file);
    if (cuplas_job_probe(j, cfg, jobs->probes, &g) != 0)
        return 0;   /* a failed job, not a failed plan */
    j->H = g.H;
    j->W = g.W;
    j->C = g.C;
    j->rank = g.in_rank;
    memcpy(j->dims, g.in_dims, sizeof j->dims);
    snprintf(j->dtype, sizeof j->dtype, "%s", g.dtype);
    rc = cuplas_job_plan_grid(j, cfg, &g, err);
    if (rc == 0 && !j->err.code)
        check_memory(jobs, j, cfg, g.elem_size);
    /* what the sog step would refuse, refused before the read, not after
       the sort: properties or SH bands the format lacks, and a padded
       grid, whose empty cells land among the splats */
    if (rc == 0 && !j->err.code && cfg->sog.enabled &&
        cuplas_sog_check_names((const char *const *)g.names, (int)g.C, cfg->sog.sh, NULL,
                               NULL, &j->err) != 0) {
        cuplas_error_where(&j->err, "%s:%s: sog", j->file, j->dataset);
    } else if (rc == 0 && !j->err.code && cfg->sog.enabled && j->nrows > 0 && !j->crop) {
        cuplas_error_set(&j->err, CUPLAS_ERR_INPUT, "sog: a %lld x %lld grid for %lld splats "
                         "(grid.fit: pad) has empty cells among them, and PlayCanvas SOG has "
                         "no holes: use grid.fit: crop, as configs/playcanvas.yaml does",
                         (long long)j->H, (long long)j->W, (long long)j->nrows);
        cuplas_error_where(&j->err, "%s:%s", j->file, j->dataset);
    }
    cuplas_h5grid_free(&g);
    if (rc || j->err.code)
        return rc;   /* a config error stops the plan; j->err fails the job */
    if (j->scene && cfg->output.ply && !output && !(j->ply_out = cuplas_output_ply_path(j->output)))
        return cuplas_error_set(err, CUPLAS_ERR_NOMEM, "out of memory");
    if (cfg->output.preview && !(j->preview_out = cuplas_output_beside(j->output, ".png")))
        return cuplas_error_set(err, CUPLAS_ERR_NOMEM, "out of memory");
    if (cfg->sog.enabled && !(j->sog_out = cuplas_output_beside(j->output, ".sog")))
        return cuplas_error_set(err, CUPLAS_ERR_NOMEM, "out of memory");
    /* a name its folder cannot hold fails the job now, not after its sort
       (the temp name, 20 bytes longer, is what is created first) */
    if (cuplas_tmp_name_check(j->output, &j->err) != 0 ||
        (j->ply_out && cuplas_tmp_name_check(j->ply_out, &j->err) != 0) ||
        (j->preview_out && cuplas_tmp_name_check(j->preview_out, &j->err) != 0) ||
        (j->sog_out && cuplas_tmp_name_check(j->sog_out, &j->err) != 0)) {
        cuplas_error_where(&j->err, "%s:%s", j->file, j->dataset);
        return 0;
    }

    if (stat(j->file, &st) != 0)
        memset(&st, 0, sizeof st);
    if (j->rank == 3)
        snprintf(shape, sizeof shape, "%" PRId64 "x%" PRId64 "x%" PRId64, j->dims[0],
                 j->dims[1], j->dims[2]);
    else
        snprintf(shape, sizeof shape, "%" PRId64 "x%" PRId64 "@%" PRId64 "x%" PRId64,
                 j->dims[0], j->dims[1], j->H, j->W);
    size_t n = strlen(j->real) + strlen(j->dataset) + 352;
    if (!(j->identity = malloc(n)))
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
    char fit[96];
    snprintf(j->identity, n, "%s:%s shape=%s dtype=%s size=%lld mtime=%lld.%09ld params=%s%s",
             j->real, j->dataset, shape, j->dtype, (long long)st.st_size,
             (long long)st.st_mtim.tv_sec, (long)st.st_mtim.tv_nsec, hash,
             cuplas_job_fit_identity(j, fit, sizeof fit));
fail:
    return rc;
}

/* A job that failed before it could be planned further. */
static int failed_job(cuplas_jobs *jobs, const char *file, const char *dataset, int input,
                      int line, const cuplas_error *why, cuplas_error *err)
{
    cuplas_job *j = new_job(jobs, file, dataset, input, line, err);
    if (!j)
        return CUPLAS_ERR_NOMEM;
    j->err = *why;
    return 0;
}

/* One HDF5 dataset of input k as a planned job: the input's grid shape and
 * external-file permission go with it. */
static int dataset_job(cuplas_jobs *jobs, const char *file, const char *dataset, int k,
                       int rel_at, const cuplas_config *cfg, const char *hash, cuplas_error *err)
{
    const cuplas_input_spec *in = &cfg->inputs[k];
    cuplas_job *j = new_job(jobs, file, dataset, k, in->line, err);
    if (!j)
        return cuplas_error_set(err, CUPLAS_ERR_NOMEM, "out of memory");
    j->height = in->height;
    j->width = in->width;
    j->rel_at = rel_at;
    j->read_flags = in->allow_external ? CUPLAS_H5_ALLOW_EXTERNAL : 0;
    return plan_job(jobs, j, cfg, NULL, hash, err);
}

/* Jobs of one matched file of entry `in` (index k). */
static int add_file(cuplas_jobs *jobs, const cuplas_config *cfg, int k, const char *file,
                    int rel_at, const char *hash, int *matched, int *listed, cuplas_error *err)
{
    const cuplas_input_spec *in = &cfg->inputs[k];
    char **names = NULL;
    int count = 0, rc = 0, patterns = 0;
    cuplas_error lerr = {0};

    if (cuplas_ply_is_scene_path(file)) {   /* one job: the vertex table */
        cuplas_job *j = new_job(jobs, file, CUPLAS_SCENE_DATASET, k, in->line, err);
        if (!j)
            return CUPLAS_ERR_NOMEM;
        j->rel_at = rel_at;
        (*listed)++;
        for (int d = 0; d < in->ndatasets; d++)
            matched[d]++;   /* datasets: mean nothing to a scene */
        return plan_job(jobs, j, cfg, NULL, hash, err);
    }
    for (int d = 0; d < in->ndatasets; d++)
        patterns |= has_magic(in->datasets[d]);
    /* list even for literal names: it tells an unreadable file apart once */
    if (cuplas_list_cached(jobs->probes, file, &names, &count, &lerr) != 0) {
        cuplas_error_fitf(lerr.where, sizeof lerr.where, "%s:/", file);
        return failed_job(jobs, file, "/", k, in->line, &lerr, err);
    }
    (*listed)++;
    if (in->ndatasets == 0 && count == 0) {
        cuplas_error_set(&lerr, CUPLAS_ERR_INPUT, "no numeric dataset of rank 2 or 3");
        cuplas_error_fitf(lerr.where, sizeof lerr.where, "%s:/", file);
        CUPLAS_TRY(failed_job(jobs, file, "/", k, in->line, &lerr, err));
    }
    for (int i = 0; i < count; i++) {
        int take = in->ndatasets == 0;
        /* names are absolute; a pattern without the leading '/' is read
           as one with it, like a literal name */
        const char *rel = names[i] + (names[i][0] == '/');
        for (int d = 0; d < in->ndatasets && patterns; d++)
            if (has_magic(in->datasets[d]) &&
                fnmatch(in->datasets[d], in->datasets[d][0] == '/' ? names[i] : rel, 0) == 0) {
                matched[d]++;
                take = 1;
            }
        if (!take)
            continue;
        CUPLAS_TRY(dataset_job(jobs, file, names[i], k, rel_at, cfg, hash, err));
    }
    for (int d = 0; d < in->ndatasets; d++) {
        if (has_magic(in->datasets[d]))
            continue;
        /* a literal name: a job even if missing (the probe says why) */
        char *path = NULL;
        if (in->datasets[d][0] != '/' && asprintf(&path, "/%s", in->datasets[d]) < 0)
            CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
        rc = dataset_job(jobs, file, path ? path : in->datasets[d], k, rel_at, cfg, hash, err);
        free(path);
        if (rc)
            goto fail;
        matched[d]++;
    }
fail:
    if (!jobs->probes)   /* else the cache's */
        cuplas_h5_free_names(names, count);
    return rc;
}

/* {relpath}'s base: the length of the longest folder prefix ("a/b/")
 * shared by every file entry `in` matches (0 when none is shared). */
static int common_folder(const cuplas_input_spec *in)
{
    char *prefix = NULL;   /* the shared folder so far, "a/b/" */
    size_t len = 0;
    glob_t gl;

    for (int f = 0; f < in->nfiles; f++) {
        const char *pat = in->files[f];
        int g = has_magic(pat) ? glob(pat, 0, NULL, &gl) : GLOB_NOMATCH;
        size_t n = g == 0 ? gl.gl_pathc : (has_magic(pat) ? 0 : 1);
        for (size_t i = 0; i < n; i++) {
            const char *file = g == 0 ? gl.gl_pathv[i] : pat;
            const char *slash = strrchr(file, '/');
            size_t dl = slash ? (size_t)(slash - file) + 1 : 0;
            if (!prefix) {
                if (!(prefix = strndup(file, dl)))
                    break;
                len = dl;
                continue;
            }
            size_t k = 0;
            while (k < len && k < dl && prefix[k] == file[k])
                k++;
            while (k > 0 && prefix[k - 1] != '/')   /* whole folder names only */
                k--;
            len = k;
        }
        if (g == 0)
            globfree(&gl);
    }
    free(prefix);
    return (int)len;
}

/* Every job of inputs[k]. */
static int add_entry(cuplas_jobs *jobs, const cuplas_config *cfg, int k, const char *hash,
                     cuplas_error *err)
{
    const cuplas_input_spec *in = &cfg->inputs[k];
    int *matched = calloc((size_t)in->ndatasets + 1, sizeof *matched);
    int rc = 0, nfiles = 0;
    cuplas_error why;

    if (!matched)
        return cuplas_error_set(err, CUPLAS_ERR_NOMEM, "out of memory");
    int rel_at = common_folder(in);
    for (int f = 0; f < in->nfiles; f++) {
        const char *pat = in->files[f];
        glob_t gl;
        int g = has_magic(pat) ? glob(pat, 0, NULL, &gl) : GLOB_NOMATCH;
        if (g == GLOB_NOSPACE) {
            globfree(&gl);
            CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory expanding %s", pat);
        }
        if (g != 0 && has_magic(pat)) {
            cuplas_error_clear(&why);
            cuplas_error_set(&why, CUPLAS_ERR_INPUT, "inputs[%d].files: \"%s\" matches no file",
                             k, pat);
            if (in->line)
                cuplas_error_fitf(why.where, sizeof why.where, "%s:%d", cfg->path, in->line);
            CUPLAS_TRY(failed_job(jobs, pat, NULL, k, in->line, &why, err));
            continue;
        }
        size_t n = g == 0 ? gl.gl_pathc : 1;
        for (size_t i = 0; i < n && rc == 0; i++) {
            const char *file = g == 0 ? gl.gl_pathv[i] : pat;
            rc = add_file(jobs, cfg, k, file, rel_at, hash, matched, &nfiles, err);
        }
        if (g == 0)
            globfree(&gl);
        if (rc)
            goto fail;
    }
    /* a dataset pattern is a filter, but one that matched in no file at all
       is almost surely a typo */
    for (int d = 0; d < in->ndatasets && nfiles; d++) {
        if (matched[d] || !has_magic(in->datasets[d]))
            continue;
        cuplas_error_clear(&why);
        cuplas_error_set(&why, CUPLAS_ERR_INPUT, "inputs[%d].datasets: \"%s\" matches no "
                         "dataset in %d file%s", k, in->datasets[d], nfiles,
                         nfiles == 1 ? "" : "s");
        cuplas_error_fitf(why.where, sizeof why.where, "%s:%s", in->files[0], in->datasets[d]);
        CUPLAS_TRY(failed_job(jobs, in->files[0], in->datasets[d], k, in->line, &why, err));
    }
fail:
    free(matched);
    return rc;
}

/* ------------------------------------------------------ dedup and order */

static int cmp_str0(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "");
}

/* The tie-break both orders end with: dataset, then the inputs[] entry. */
static int cmp_dataset_input(const cuplas_job *a, const cuplas_job *b)
{
    int c = cmp_str0(a->dataset, b->dataset);
    return c ? c : (a->input > b->input) - (a->input < b->input);
}

static int cmp_identity(const void *pa, const void *pb)
{
    const cuplas_job *a = pa, *b = pb;
    int c = strcmp(a->real, b->real);
    return c ? c : cmp_dataset_input(a, b);
}

/* Largest grid first; the order is total, so every run plans the same. */
static int cmp_order(const void *pa, const void *pb)
{
    const cuplas_job *a = pa, *b = pb;
    int64_t sa = a->err.code ? -1 : a->H * a->W * a->C;
    int64_t sb = b->err.code ? -1 : b->H * b->W * b->C;
    int c = (sa < sb) - (sa > sb);
    if (!c)
        c = strcmp(a->file, b->file);
    return c ? c : cmp_dataset_input(a, b);
}

/* Same file (by canonical path) and dataset twice: keep the first entry's. */
static void dedup(cuplas_jobs *jobs)
{
    int w = 0;
    if (jobs->n < 2)
        return;
    qsort(jobs->v, (size_t)jobs->n, sizeof *jobs->v, cmp_identity);
    for (int i = 0; i < jobs->n; i++) {
        if (w > 0 && jobs->v[i].dataset && !strcmp(jobs->v[w - 1].real, jobs->v[i].real) &&
            !cmp_str0(jobs->v[w - 1].dataset, jobs->v[i].dataset)) {
            free_job(&jobs->v[i]);
            continue;
        }
        jobs->v[w++] = jobs->v[i];
    }
    jobs->n = w;
}

/* ------------------------------------------------------------ public API */

int cuplas_jobs_build(cuplas_jobs *jobs, const cuplas_config *cfg, cuplas_error *err)
{
    char hash[17];
    int rc = 0;

    memset(jobs, 0, sizeof *jobs);
    jobs->config_path = cfg->path ? cfg->path : "";
    jobs->output_dir_where = cfg->output.dir_where;
    jobs->output_dir_line = cfg->output.dir_line;
    jobs->log_path = cfg->log.file;
    config_hash(cfg, hash);
    jobs->probes = cuplas_probe_cache_new();   /* NULL: every probe opens the file */
    for (int k = 0; k < cfg->ninputs; k++)
        CUPLAS_TRY(add_entry(jobs, cfg, k, hash, err));
    dedup(jobs);
    CUPLAS_TRY(cuplas_jobs_check_collisions(jobs, err));
    CUPLAS_TRY(cuplas_jobs_check_paths(jobs, err));
    if (jobs->n > 1)
        qsort(jobs->v, (size_t)jobs->n, sizeof *jobs->v, cmp_order);
fail:
    cuplas_probe_cache_free(jobs->probes);
    jobs->probes = NULL;
    return rc;
}

int cuplas_jobs_add_one(cuplas_jobs *jobs, const cuplas_config *cfg, const char *file,
                        const char *dataset, int64_t height, int64_t width,
                        const char *output, cuplas_error *err)
{
    char hash[17];
    cuplas_job *j;

    if (!jobs->config_path)
        jobs->config_path = "";
    jobs->log_path = cfg->log.file;
    config_hash(cfg, hash);
    if (!(j = new_job(jobs, file, dataset, -1, 0, err)))
        return CUPLAS_ERR_NOMEM;
    j->height = height;
    j->width = width;
    j->read_flags = jobs->add_one_flags;
    return plan_job(jobs, j, cfg, output, hash, err);
}

int cuplas_jobs_set_ply(cuplas_jobs *jobs, const char *ply_out, cuplas_error *err)
{
    cuplas_job *j = jobs->n ? &jobs->v[jobs->n - 1] : NULL;
    if (!j || (!j->scene && !j->err.code))
        return cuplas_error_set(err, CUPLAS_ERR_USAGE, "--ply needs a PLY or .splat input");
    free(j->ply_out);
    if (!(j->ply_out = strdup(ply_out)))
        return cuplas_error_set(err, CUPLAS_ERR_NOMEM, "out of memory");
    return 0;
}

void cuplas_job_sog_keys(const cuplas_config *cfg, char *buf, size_t size)
{
    snprintf(buf, size, "{\"sh\": %s, \"sh_palette\": %d, \"sh_iterations\": %d, "
             "\"webp_method\": %d", cfg->sog.sh ? "true" : "false", cfg->sog.sh_palette,
             cfg->sog.sh_iterations, cfg->sog.webp_method);
}

int64_t cuplas_job_sog_bytes(const char *attr)
{
    const char *at = attr ? strstr(attr, "\"bytes\": ") : NULL;
    long long bytes = -1;
    return at && sscanf(at + 9, "%lld", &bytes) == 1 && bytes >= 0 ? (int64_t)bytes : -1;
}

static int add_size(const char *path, const struct stat *st, void *sum)
{
    (void)path;
    *(int64_t *)sum += (int64_t)st->st_size;
    return 0;
}

/* The SOG folder is the one the result records: written with these sog
 * keys, and its files' bytes the recorded total (not one an earlier run
 * left, or a later, killed one half replaced). */
static int sog_there(const cuplas_job *job, const cuplas_config *cfg)
{
    char keys[160];
    char *have = cuplas_h5_output_str(job->output, job->dataset, "sog");
    int64_t sum = 0, bytes = cuplas_job_sog_bytes(have);
    int ok;

    cuplas_job_sog_keys(cfg, keys, sizeof keys);
    ok = have && !strncmp(have, keys, strlen(keys)) && bytes >= 0 &&
         cuplas_dir_files(job->sog_out, add_size, &sum) == 0 && sum == bytes;
    free(have);
    return ok;
}

const char *cuplas_job_extra_missing(const cuplas_job *job, const cuplas_config *cfg)
{
    const char *what = NULL;
    char *have = NULL, stamp[80];

    if (job->ply_out) {
        have = cuplas_h5_output_str(job->output, job->dataset, "sorted_ply");
        if (!have || cuplas_file_stamp(job->ply_out, stamp, sizeof stamp) != 0 ||
            strcmp(have, stamp))
            what = "its sorted PLY";
        free(have);
        have = NULL;
    }
    if (!what && job->preview_out && !cuplas_file_as_new(job->preview_out, job->output))
        what = "its preview";
    if (!what && cfg->eval.enabled) {
        cuplas_eval_opts want;
        cuplas_eval_result *got = malloc(sizeof *got);
        cuplas_json *v = NULL;
        cuplas_error e;
        cuplas_error_clear(&e);
        cuplas_job_eval_opts(cfg, &want);
        have = cuplas_h5_output_str(job->output, job->dataset, "eval");
        if (!have || !got || cuplas_json_parse(have, strlen(have), &v, &e) != 0 ||
            cuplas_eval_result_from_json(v, got) != 0 || !cuplas_eval_result_answers(got, &want))
            what = "its eval";
        cuplas_json_free(v);
        free(got);
        free(have);
    }
    if (!what && job->sog_out && !sog_there(job, cfg))
        what = "its SOG folder";
    if (!what && cfg->eval.enabled && cfg->eval.images) {
        struct stat st;
        char *dir = cuplas_output_beside(job->output, ".eval");
        if (!dir || stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
            what = "its eval images";
        free(dir);
    }
    return what;
}

void cuplas_job_eval_opts(const cuplas_config *cfg, cuplas_eval_opts *o)
{
    cuplas_error e;

    cuplas_error_clear(&e);
    cuplas_eval_opts_default(o);
    o->codecs = 0;
    for (int i = 0; i < cfg->eval.ncodecs; i++) {
        cuplas_codec c;
        if (cuplas_codec_parse(cfg->eval.codecs[i], &c, &e) == 0)   /* checked at load */
            o->codecs |= 1u << c;
    }
    o->orders = 1u << CUPLAS_ORDER_SORTED;   /* always measured */
    for (int i = 0; i < cfg->eval.norders; i++) {
        cuplas_order_kind k;
        if (cuplas_order_parse(cfg->eval.orders[i], &k) == 0)   /* checked at load */
            o->orders |= 1u << k;
    }
    o->codec.webp_method = cfg->eval.webp_method;
    o->scheme = (cuplas_scheme)cfg->eval.scheme;
    o->sh_palette = cfg->eval.sh_palette;
    o->sh_iterations = cfg->eval.sh_iterations;
}

int cuplas_job_channels(const cuplas_config *cfg, int64_t C, int **use, int *nuse,
                        cuplas_error *err)
{
    const cuplas_channel_opts *ch = &cfg->channels;
    int n = ch->use ? ch->nuse : (int)C, rc = 0;

    *use = NULL;
    *nuse = 0;
    if (n <= 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "no channels to sort by");
    for (int k = 0; ch->use && k < n; k++)
        if (ch->use[k] >= C)
            CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "channels.use: channel %d does not exist "
                        "(the data has C = %lld channels)", ch->use[k], (long long)C);
    if (ch->nweights && ch->nweights != n)
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "channels.weights: %d weight%s for %d used "
                    "channel%s", ch->nweights, ch->nweights == 1 ? "" : "s", n,
                    n == 1 ? "" : "s");
    if (!(*use = malloc((size_t)n * sizeof **use)))
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
    for (int k = 0; k < n; k++)
        (*use)[k] = ch->use ? ch->use[k] : k;
    *nuse = n;
fail:
    return rc;
}

const char *cuplas_output_dir_cite(const char *dir_where, const char *config_path, char *buf,
                                   size_t size)
{
    if (dir_where)
        cuplas_error_fitf(buf, size, " [%s]", dir_where);
    else if (config_path && config_path[0])
        cuplas_error_fitf(buf, size, " [%s: output.dir's default]", config_path);
    else
        buf[0] = '\0';
    return buf;
}

int cuplas_job_line(const cuplas_jobs *jobs, const cuplas_job *job, const cuplas_error *e)
{
    if (e->reason == CUPLAS_REASON_OUTPUT_DIR)
        return jobs ? jobs->output_dir_line : 0;
    return job->line;
}

const char *cuplas_job_error_line(const cuplas_jobs *jobs, const cuplas_job *job,
                                  const cuplas_error *e, char *buf, size_t size)
{
    char where[1200], at[600] = "";
    const char *cfgp = jobs && jobs->config_path ? jobs->config_path : "";

    if (!job->dataset) {
        /* an entry-level failure already points at the config line */
        snprintf(buf, size, "%s: %s", e->where[0] ? e->where : job->file, e->msg);
        return buf;
    }
    /* the input's own context ("file:/dataset", set by h5_read) is the best
       anchor; an output-side context is shown after it */
    size_t fl = strlen(job->file);
    if (e->where[0] && !strncmp(e->where, job->file, fl) && e->where[fl] == ':')
        snprintf(where, sizeof where, "%s", e->where);
    else if (!strcmp(e->where, job->file))   /* the input as a whole (a .splat's size) */
        cuplas_error_fitf(where, sizeof where, "%s:%s", job->file, job->dataset);
    else if (e->where[0])   /* a path may be longer than the line: keep both ends */
        cuplas_error_fitf(where, sizeof where, "%s:%s -> %s", job->file, job->dataset,
                          e->where);
    else
        cuplas_error_fitf(where, sizeof where, "%s:%s", job->file, job->dataset);
    /* a folder that cannot be made or written is output.dir's doing, not
       the inputs entry's (`cuplas sort` names its output itself: no cfg) */
    if (e->reason == CUPLAS_REASON_OUTPUT_DIR)
        cuplas_output_dir_cite(jobs ? jobs->output_dir_where : NULL, cfgp, at, sizeof at);
    else if (job->line && cfgp[0])
        cuplas_error_fitf(at, sizeof at, " [%s:%d]", cfgp, job->line);
    snprintf(buf, size, "%s: %s%s", where, e->msg, at);
    return buf;
}
