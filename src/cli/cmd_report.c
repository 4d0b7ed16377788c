/*
 * cmd_report.c - `cuplas report DIR`: one summary of every manifest in an
 * output folder (the shards of an array job, their requeued reruns).
 *
 * Design fact: report only reads manifests, never outputs, so it is cheap
 * on a login node; what makes the exit code nonzero is anything that
 * means "not finished": a failed, cancelled or pending dataset, a shard
 * with no manifest, a run's start marker (killed, or still running: a
 * report cannot tell, and either way the folder is not what a finished
 * run left), or a manifest it cannot read.
 */
#define _GNU_SOURCE /* asprintf */
#include "cli/cli.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/json.h"
#include "eval/evaluate.h"
#include "pipeline/manifest.h"

static const char report_help[] =
    "Usage: cuplas report DIR [--json OUT.json] [--csv OUT.csv] [--html OUT.html]\n"
    "\n"
    "Merge every manifest in DIR (cuplas-manifest.json and\n"
    "cuplas-manifest.I-of-N.json, written by `cuplas run`) into one summary:\n"
    "manifests by shard (host, exit code, end time), counts of datasets\n"
    "done / skipped / failed / cancelled / pending, every failure with its\n"
    "reason, mean AND before and after, total sort time and throughput\n"
    "(datasets done per second from the first start to the last end).\n"
    "Of several manifests of one shard the one that ended last counts; per\n"
    "dataset the newest record counts, except that `skipped` keeps an\n"
    "earlier `done` record (it is that output). Shards of an N-way split\n"
    "with no manifest are reported as missing, unless that split ended\n"
    "before a complete split of another count (every shard's manifest\n"
    "there, each finished) began: the later split supersedes it.\n"
    "A run writes its manifest at its start too, as a marker (\"finished\":\n"
    "false, every dataset pending): a run that was killed, or is still\n"
    "running, is reported as not finished, never as the run before it.\n"
    "\n"
    "Options:\n"
    "  --json FILE  also write the merged summary and every dataset as JSON\n"
    "               (status, AND, stage times, shape, dtype, device, the\n"
    "               preview's path as found from here, the eval object)\n"
    "  --csv FILE   also write one CSV row per dataset\n"
    "  --html FILE  also write one self-contained HTML page (works offline):\n"
    "               the table, and per dataset its preview and compressed\n"
    "               bytes against the baselines, where the run made them\n"
    "               (output.preview, eval.enabled)\n"
    "  -h, --help   this text\n"
    "\n"
    "Exit codes (report):\n"
    "  0   every dataset done or skipped, no shard missing\n"
    "  1   failures, cancelled or pending datasets, missing shards, a run that\n"
    "      did not finish (killed or still running), unreadable manifests, or\n"
    "      no manifest at all\n"
    "  2   usage error (DIR cannot be read, bad option), or an output file\n"
    "      cannot be written\n";

static int is_manifest_name(const char *n)
{
    size_t len = strlen(n);
    if (!strcmp(n, "cuplas-manifest.json"))
        return 1;
    return !strncmp(n, "cuplas-manifest.", 16) && len > 21 && !strcmp(n + len - 5, ".json");
}

static int cmp_strp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted paths of DIR's manifests. -1 if DIR cannot be read. */
static int list_manifests(const char *dir, char ***out, int *n)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    char **v = NULL;
    int cap = 0;

    *n = 0;
    if (!d)
        return -1;
    while ((de = readdir(d))) {
        if (!is_manifest_name(de->d_name))
            continue;
        if (*n == cap) {
            char **p = realloc(v, (size_t)(cap = cap ? 2 * cap : 16) * sizeof *p);
            if (!p)
                break;
            v = p;
        }
        if (asprintf(&v[*n], "%s/%s", dir, de->d_name) < 0)
            break;
        (*n)++;
    }
    closedir(d);
    if (*n > 1)
        qsort(v, (size_t)*n, sizeof *v, cmp_strp);
    *out = v;
    return 0;
}

static const char *shard_text(const cuplas_shard *s, char *buf, size_t size)
{
    if (s->count > 0)
        snprintf(buf, size, "%d/%d", s->index, s->count);
    else
        snprintf(buf, size, "-");
    return buf;
}

static void print_table(FILE *f, const char *dir, const cuplas_merged *mg, int nbad)
{
    char sh[32];

    fprintf(f, "cuplas report: %s: %d manifest%s", dir, mg->nused, mg->nused == 1 ? "" : "s");
    if (mg->nsuperseded)
        fprintf(f, " (+%d superseded)", mg->nsuperseded);
    fprintf(f, ", %d dataset%s\n\n", mg->n, mg->n == 1 ? "" : "s");
    fprintf(f, "%-8s %-16s %4s %5s %5s %5s %6s %7s %9s  %s\n", "shard", "host", "exit", "done",
            "skip", "fail", "unfin", "intr", "sort_s", "end");
    for (int u = 0; u < mg->nused; u++) {
        const cuplas_manifest *m = mg->used[u];
        int n[4] = {0};
        double sort_s = 0;
        for (int i = 0; i < m->n; i++) {
            const char *st = m->v[i].status;
            n[!strcmp(st, "done") ? 0 : !strcmp(st, "skipped") ? 1 : !strcmp(st, "failed") ? 2
                                                                                              : 3]++;
            if (!strcmp(st, "done"))
                sort_s += m->v[i].sort_s;
        }
        if (!m->finished) {   /* a start marker: no exit code, no end */
            fprintf(f, "%-8s %-16.16s %4s %5d %5d %5d %6d %7s %9s  (started %s)\n",
                    shard_text(&m->shard, sh, sizeof sh), m->host ? m->host : "?", "-", n[0],
                    n[1], n[2], n[3], "-", "-", m->start_time);
            continue;
        }
        fprintf(f, "%-8s %-16.16s %4d %5d %5d %5d %6d %7s %9.3f  %s\n",
                shard_text(&m->shard, sh, sizeof sh), m->host ? m->host : "?", m->exit_code,
                n[0], n[1], n[2], n[3], m->interrupted ? "yes" : "no", sort_s, m->end_time);
    }
    for (int u = 0; u < mg->nused; u++)
        if (!mg->used[u]->finished && !cuplas_merged_superseded(mg, mg->used[u]->shard.count))
            fprintf(f, "%-8s (run did not finish: started %s on %s, pid %d; killed, or still "
                    "running)\n", shard_text(&mg->used[u]->shard, sh, sizeof sh),
                    mg->used[u]->start_time, mg->used[u]->host ? mg->used[u]->host : "?",
                    mg->used[u]->pid);
    for (int i = 0; i < mg->nmissing; i++)
        fprintf(f, "%-8s (no manifest: the task never finished or never ran)\n",
                shard_text(&mg->missing[i], sh, sizeof sh));
    for (int i = 0; i < mg->nold_splits; i++) {
        if (mg->old_splits[i] > 0)
            fprintf(f, "(the %d-way split", mg->old_splits[i]);
        else
            fprintf(f, "(the unsharded run");
        fprintf(f, " ended before a complete split of another count began: superseded, its "
                "missing shards and unfinished runs are not counted)\n");
    }
    fprintf(f, "\ndatasets: %d done, %d skipped, %d failed, %d cancelled, %d pending\n",
            mg->done, mg->skipped, mg->failed, mg->cancelled, mg->pending);
    if (mg->and_count)
        fprintf(f, "AND (mean of %d): before %.6g, after %.6g\n", mg->and_count,
                mg->and_before_mean, mg->and_after_mean);
    fprintf(f, "sort time: %.3f s total; first start to last end: %.3f s; throughput: %.3f "
            "grids/s\n", mg->sort_s, mg->span_s, mg->span_s > 0 ? mg->done / mg->span_s : 0.0);
    int header = 0;
    for (int i = 0; i < mg->n; i++) {
        const cuplas_manifest_entry *e = mg->v[i].e;
        if (!strcmp(e->status, "done") || !strcmp(e->status, "skipped"))
            continue;
        if (!header++)
            fprintf(f, "\nnot finished:\n");
        /* a job's error line already starts with its file:dataset */
        if (e->error)
            fprintf(f, "  %-9s %s  [shard %s]\n", e->status, e->error,
                    shard_text(&mg->v[i].from->shard, sh, sizeof sh));
        else
            fprintf(f, "  %-9s %s:%s  [shard %s]\n", e->status, e->input,
                    e->dataset ? e->dataset : "", shard_text(&mg->v[i].from->shard, sh, sizeof sh));
    }
    if (nbad)
        fprintf(f, "\n%d manifest%s could not be read (see above)\n", nbad, nbad == 1 ? "" : "s");
}

static void csv_field(FILE *f, const char *s, int last)
{
    if (s && strpbrk(s, ",\"\r\n")) {
        fputc('"', f);
        for (; *s; s++) {
            if (*s == '"')
                fputc('"', f);
            fputc(*s, f);
        }
        fputc('"', f);
    } else if (s) {
        fputs(s, f);
    }
    fputc(last ? '\n' : ',', f);
}

static void csv_num(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.17g", v);
    fputc(',', f);
}

static void write_csv(FILE *f, const cuplas_merged *mg)
{
    char sh[32], shape[96];

    fputs("input,dataset,output,status,error,and_before,and_after,read_s,prep_s,sort_s,"
          "write_s,total_s,backend,device,shape,dtype,sog_bytes,shard,host\n", f);
    for (int i = 0; i < mg->n; i++) {
        const cuplas_manifest_entry *e = mg->v[i].e;
        csv_field(f, e->input, 0);
        csv_field(f, e->dataset, 0);
        csv_field(f, e->output, 0);
        csv_field(f, e->status, 0);
        csv_field(f, e->error, 0);
        csv_num(f, e->and_before);
        csv_num(f, e->and_after);
        csv_num(f, e->read_s);
        csv_num(f, e->prep_s);
        csv_num(f, e->sort_s);
        csv_num(f, e->write_s);
        csv_num(f, e->total_s);
        csv_field(f, e->backend, 0);
        csv_field(f, e->device, 0);
        if (e->shape[0] > 0)
            snprintf(shape, sizeof shape, "%lldx%lldx%lld", (long long)e->shape[0],
                     (long long)e->shape[1], (long long)e->shape[2]);
        else
            shape[0] = '\0';
        csv_field(f, shape, 0);
        csv_field(f, e->dtype, 0);
        fprintf(f, "%lld,", (long long)e->sog_bytes);
        csv_field(f, shard_text(&mg->v[i].from->shard, sh, sizeof sh), 0);
        csv_field(f, mg->v[i].from->host, 1);
    }
}

static void json_shard(FILE *f, const cuplas_shard *s)
{
    if (s->count > 0)
        fprintf(f, "{\"index\": %d, \"count\": %d}", s->index, s->count);
    else
        fputs("null", f);
}

static void write_json(FILE *f, const char *dir, const cuplas_merged *mg, int nbad, int rc)
{
    fputs("{\n  \"format\": \"cuplas-report\", \"format_version\": 1, \"dir\": ", f);
    cuplas_json_write_str(f, dir);
    fprintf(f, ", \"exit_code\": %d,\n  \"totals\": {\"datasets\": %d, \"done\": %d, "
            "\"skipped\": %d, \"failed\": %d, \"cancelled\": %d, \"pending\": %d, "
            "\"and_count\": %d, \"and_before_mean\": ", rc, mg->n, mg->done, mg->skipped,
            mg->failed, mg->cancelled, mg->pending, mg->and_count);
    cuplas_json_write_num(f, mg->and_before_mean);
    fputs(", \"and_after_mean\": ", f);
    cuplas_json_write_num(f, mg->and_after_mean);
    fputs(", \"sort_s\": ", f);
    cuplas_json_write_num(f, mg->sort_s);
    fputs(", \"span_s\": ", f);
    cuplas_json_write_num(f, mg->span_s);
    fputs(", \"grids_per_s\": ", f);
    cuplas_json_write_num(f, mg->span_s > 0 ? mg->done / mg->span_s : 0.0);
    fprintf(f, ", \"unreadable_manifests\": %d, \"superseded_manifests\": %d, "
            "\"unfinished_runs\": %d},\n", nbad, mg->nsuperseded, mg->nunfinished);
    fputs("  \"manifests\": [", f);
    for (int u = 0; u < mg->nused; u++) {
        const cuplas_manifest *m = mg->used[u];
        fputs(u ? ",\n    {\"path\": " : "\n    {\"path\": ", f);
        cuplas_json_write_str(f, m->path);
        fputs(", \"shard\": ", f);
        json_shard(f, &m->shard);
        fputs(", \"host\": ", f);
        cuplas_json_write_str(f, m->host);
        fprintf(f, ", \"finished\": %s, \"exit_code\": ", m->finished ? "true" : "false");
        if (m->finished)
            fprintf(f, "%d", m->exit_code);
        else
            fputs("null", f);
        fprintf(f, ", \"interrupted\": %s, \"start_time\": ",
                m->interrupted ? "true" : "false");
        cuplas_json_write_str(f, m->start_time);
        fputs(", \"end_time\": ", f);
        cuplas_json_write_str(f, m->finished ? m->end_time : NULL);
        fputs("}", f);
    }
    fputs("],\n  \"missing_shards\": [", f);
    for (int i = 0; i < mg->nmissing; i++) {
        fputs(i ? ", " : "", f);
        json_shard(f, &mg->missing[i]);
    }
    fputs("],\n  \"superseded_splits\": [", f);
    for (int i = 0; i < mg->nold_splits; i++)
        fprintf(f, "%s%d", i ? ", " : "", mg->old_splits[i]);
    fputs("],\n  \"datasets\": [", f);
    for (int i = 0; i < mg->n; i++) {
        const cuplas_manifest_entry *e = mg->v[i].e;
        fputs(i ? ",\n    {\"input\": " : "\n    {\"input\": ", f);
        cuplas_json_write_str(f, e->input);
        fputs(", \"dataset\": ", f), cuplas_json_write_str(f, e->dataset);
        fputs(", \"output\": ", f), cuplas_json_write_str(f, e->output);
        fputs(", \"status\": ", f), cuplas_json_write_str(f, e->status);
        fputs(", \"error\": ", f), cuplas_json_write_str(f, e->error);
        fputs(", \"and_before\": ", f), cuplas_json_write_num(f, e->and_before);
        fputs(", \"and_after\": ", f), cuplas_json_write_num(f, e->and_after);
        fputs(", \"read_s\": ", f), cuplas_json_write_num(f, e->read_s);
        fputs(", \"prep_s\": ", f), cuplas_json_write_num(f, e->prep_s);
        fputs(", \"sort_s\": ", f), cuplas_json_write_num(f, e->sort_s);
        fputs(", \"write_s\": ", f), cuplas_json_write_num(f, e->write_s);
        fputs(", \"total_s\": ", f), cuplas_json_write_num(f, e->total_s);
        fputs(", \"backend\": ", f), cuplas_json_write_str(f, e->backend[0] ? e->backend : NULL);
        fputs(", \"device\": ", f), cuplas_json_write_str(f, e->device);
        fputs(", \"shape\": ", f);
        if (e->shape[0] > 0)
            fprintf(f, "[%lld, %lld, %lld]", (long long)e->shape[0], (long long)e->shape[1],
                    (long long)e->shape[2]);
        else
            fputs("null", f);
        fputs(", \"dtype\": ", f), cuplas_json_write_str(f, e->dtype[0] ? e->dtype : NULL);
        fputs(", \"shard\": ", f), json_shard(f, &mg->v[i].from->shard);
        fputs(", \"manifest\": ", f), cuplas_json_write_str(f, mg->v[i].from->path);
        /* the preview as found from here, like --html; null = none */
        char *png = cuplas_manifest_preview_path(mg->v[i].from, e);
        fputs(", \"preview\": ", f), cuplas_json_write_str(f, png ? png : e->preview);
        free(png);
        fprintf(f, ", \"sog_bytes\": %lld", (long long)e->sog_bytes);
        fputs(", \"eval\": ", f);
        if (e->eval)
            cuplas_eval_result_json(f, e->eval);
        else
            fputs("null", f);
        fputs("}", f);
    }
    fputs(mg->n ? "\n  ]\n}\n" : "]\n}\n", f);
}

/* Write with fn to path; 0 or -1 (message printed). */
static int write_file(const char *path, const char *dir, const cuplas_merged *mg, int nbad,
                      int rc, int what)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "cuplas report: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    if (what == 1)
        write_json(f, dir, mg, nbad, rc);
    else if (what == 2)
        cuplas_report_html(f, dir, mg, nbad);
    else
        write_csv(f, mg);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        fprintf(stderr, "cuplas report: cannot write %s\n", path);
        return -1;
    }
    return 0;
}

static int cmd_report(int argc, char **argv)
{
    static const struct option opts[] = {
        {"json", required_argument, NULL, 'j'},
        {"csv", required_argument, NULL, 'c'},
        {"html", required_argument, NULL, 'H'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *json_out = NULL, *csv_out = NULL, *html_out = NULL, *dir;
    char **paths = NULL;
    cuplas_manifest *ms = NULL;
    cuplas_merged mg;
    cuplas_error err;
    int c, npaths = 0, nms = 0, nbad = 0, rc = CUPLAS_EXIT_OK;

    memset(&mg, 0, sizeof mg);
    optind = 0;
    opterr = 0; /* cuplas_cli_bad_option says it, in one line */
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case 'h':
            fputs(report_help, stdout);
            goto done;
        case 'j':
            json_out = optarg;
            break;
        case 'c':
            csv_out = optarg;
            break;
        case 'H':
            html_out = optarg;
            break;
        default:
            rc = cuplas_cli_bad_option("report", c, argv);
            goto done;
        }
    }
    if (optind != argc - 1) {
        rc = cuplas_cli_usage("report", "expected exactly one DIR");
        goto done;
    }
    dir = argv[optind];
    if (list_manifests(dir, &paths, &npaths) != 0) {
        rc = cuplas_cli_usage("report", "cannot read folder %s: %s", dir, strerror(errno));
        goto done;
    }
    if (!(ms = calloc((size_t)npaths + 1, sizeof *ms))) {
        rc = CUPLAS_EXIT_FATAL;
        goto done;
    }
    for (int i = 0; i < npaths; i++) {
        cuplas_error_clear(&err);
        if (cuplas_manifest_read(paths[i], &ms[nms], &err) == 0) {
            nms++;
            continue;
        }
        nbad++;
        cuplas_cli_error(&err);
    }
    cuplas_error_clear(&err);
    if (cuplas_manifest_merge(ms, nms, &mg, &err) != 0) {
        cuplas_cli_error(&err);
        rc = CUPLAS_EXIT_FATAL;
        goto done;
    }
    if (mg.failed || mg.cancelled || mg.pending || mg.nmissing || mg.nunfinished || nbad ||
        nms == 0)
        rc = CUPLAS_EXIT_JOBS_FAILED;
    if (nms == 0 && !nbad)
        fprintf(stderr, "cuplas report: no cuplas-manifest*.json in %s\n", dir);
    print_table(stdout, dir, &mg, nbad);
    if ((json_out && write_file(json_out, dir, &mg, nbad, rc, 1) != 0) ||
        (csv_out && write_file(csv_out, dir, &mg, nbad, rc, 0) != 0) ||
        (html_out && write_file(html_out, dir, &mg, nbad, rc, 2) != 0))
        rc = CUPLAS_EXIT_USAGE;
done:
    cuplas_merged_free(&mg);
    for (int i = 0; i < nms; i++)
        cuplas_manifest_free(&ms[i]);
    free(ms);
    for (int i = 0; i < npaths; i++)
        free(paths[i]);
    free(paths);
    return rc;
}

const cuplas_cmd cuplas_cmd_report_def = {
    "report", cmd_report, "merge the run manifests of an output folder into one summary",
    report_help, 0,
};
