/*
 * fit_plan.c - a job's grid and named channels, while planning
 * (fit_plan.h).
 */
#define _GNU_SOURCE /* strdup, strtok_r */
#include "pipeline/fit_plan.h"
#include "pipeline/probe_cache.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/channel_names.h"
#include "core/fit.h"
#include "io/h5_read.h"
#include "io/scene.h"

int cuplas_job_probe(cuplas_job *j, const cuplas_config *cfg, cuplas_probe_cache *pc,
                     cuplas_h5grid *g)
{
    cuplas_error first, again;

    cuplas_error_clear(&first);
    cuplas_error_clear(&again);
    j->read_height = j->height;
    j->read_width = j->width;
    j->fitting = 1;
    if (j->scene)
        return cuplas_scene_probe(j->file, g, &j->err) != 0;
    if (cuplas_probe_cached(pc, j->file, j->dataset, j->height, j->width, j->read_flags, g, &first) == 0) {
        /* an explicit grid.shape refits (N, C) data whatever its attributes */
        if (g->in_rank == 2 && cfg->grid.shape[0] > 0) {
            cuplas_h5grid_free(g);
            if (cuplas_probe_cached(pc, j->file, j->dataset, 0, 1, j->read_flags, g, &again) != 0) {
                j->err = again;
                return 1;
            }
            return 0;
        }
        j->fitting = 0;   /* its own shape, read as before */
        return 0;
    }
    /* no shape of its own: fit when grid.shape or height x width says
     * how, and by default (auto, pad) when nothing names a shape and N is
     * merely not a square. Any other probe error (a given shape that does
     * not divide N, inconsistent attributes) stays the job's error. */
    if (cfg->grid.shape[0] == 0 && !(j->height > 0 && j->width > 0) &&
        !(j->height <= 0 && j->width <= 0 && first.reason == CUPLAS_REASON_NOT_SQUARE)) {
        j->err = first;
        return 1;
    }
    if (cuplas_probe_cached(pc, j->file, j->dataset, 0, 1, j->read_flags, g, &again) != 0 || g->in_rank != 2) {
        cuplas_h5grid_free(g);
        j->err = first;
        return 1;
    }
    return 0;
}

/* The input's column names, or "0".."C-1" for an unnamed input (index
 * selectors still work; names then fail with the list). */
static const char **column_names(const cuplas_h5grid *g, char **numbers)
{
    const char **names = malloc((size_t)g->C * sizeof *names);
    if (!names)
        return NULL;
    for (int64_t c = 0; c < g->C; c++)
        names[c] = g->names ? g->names[c] : numbers[c];
    return names;
}

/* Resolve one selector list against the names: a config error with the
 * selector's location and the input named. */
static int resolve(const cuplas_job *j, const char *key, const cuplas_selectors *s, int first,
                   int count, const char *const *names, int C, int *cols, int *k,
                   cuplas_error *err)
{
    if (cuplas_channels_resolve((const char *const *)s->v + first, count, names, C, cols, k,
                                err) == 0)
        return 0;
    char msg[sizeof err->msg];
    snprintf(msg, sizeof msg, "%s", err->msg);
    cuplas_error_fitf(err->msg, sizeof err->msg, "%s: %s (in %s%s%s)", key, msg, j->file,
                      j->scene ? "" : ":", j->scene ? "" : j->dataset);
    err->code = CUPLAS_ERR_USAGE;
    if (s->where && s->where[first] && s->where[first][0])
        cuplas_error_where(err, "%s", s->where[first]);
    return CUPLAS_ERR_USAGE;
}

/* The position of column col among the used ones, or -1. */
static int used_at(const cuplas_job *j, int col)
{
    for (int k = 0; k < j->nuse; k++)
        if (j->use[k] == col)
            return k;
    return -1;
}

/* Mark the used channels that selector list s names: flags[k] = value. */
static int mark(const cuplas_job *j, const char *key, const cuplas_selectors *s,
                const char *const *names, int C, unsigned char *flags, int value,
                cuplas_error *err)
{
    int *cols = malloc((size_t)C * sizeof *cols), k = 0, rc = 0;
    if (!cols)
        return cuplas_error_set(err, CUPLAS_ERR_NOMEM, "out of memory");
    for (int i = 0; i < s->n && rc == 0; i++) {
        if ((rc = resolve(j, key, s, i, 1, names, C, cols, &k, err)) != 0)
            break;
        for (int m = 0; m < k; m++) {
            int at = used_at(j, cols[m]);
            if (at < 0) {
                rc = cuplas_error_set(err, CUPLAS_ERR_USAGE, "%s: %s is not among the "
                                      "channels the sort uses (channels.use)", key,
                                      names[cols[m]]);
                if (s->where[i][0])
                    cuplas_error_where(err, "%s", s->where[i]);
                break;
            }
            flags[at] = (unsigned char)value;
        }
    }
    free(cols);
    return rc;
}

/* channels.groups: each entry "a,b,c" one group id (its position). */
static int plan_groups(cuplas_job *j, const cuplas_config *cfg, const char *const *names, int C,
                       cuplas_error *err)
{
    const cuplas_selectors *gs = &cfg->channels.groups;
    int *cols = malloc((size_t)C * sizeof *cols), rc = 0;

    if (!cols || !(j->group = malloc((size_t)j->nuse * sizeof *j->group))) {
        free(cols);
        return cuplas_error_set(err, CUPLAS_ERR_NOMEM, "out of memory");
    }
    for (int k = 0; k < j->nuse; k++)
        j->group[k] = -1;
    for (int gi = 0; gi < gs->n && rc == 0; gi++) {
        /* split "x,y,z" into a selector list that keeps the location */
        char *copy = strdup(gs->v[gi]), *save = NULL, *parts[256];
        char *wh[256];
        int np = 0, k = 0;
        if (!copy) {
            rc = cuplas_error_set(err, CUPLAS_ERR_NOMEM, "out of memory");
            break;
        }
        for (char *t = strtok_r(copy, ", ", &save); t && np < 256; t = strtok_r(NULL, ", ", &save)) {
            wh[np] = gs->where[gi];
            parts[np++] = t;
        }
        cuplas_selectors one = {parts, wh, np};
        if ((rc = resolve(j, "channels.groups", &one, 0, np, names, C, cols, &k, err)) == 0) {
            for (int m = 0; m < k && rc == 0; m++) {
                int at = used_at(j, cols[m]);
                if (at < 0 || j->group[at] >= 0) {
                    rc = cuplas_error_set(err, CUPLAS_ERR_USAGE, "channels.groups: %s is %s",
                                         names[cols[m]], at < 0 ? "not among the channels "
                                         "the sort uses (channels.use)" : "in two groups");
                    if (gs->where[gi][0])
                        cuplas_error_where(err, "%s", gs->where[gi]);
                } else {
                    j->group[at] = gi;
                }
            }
        }
        free(copy);
    }
    free(cols);
    return rc;
}

/* channels.use by name, the transforms, grid.crop_by. */
static int plan_names(cuplas_job *j, const cuplas_config *cfg, const cuplas_h5grid *g,
                      cuplas_error *err)
{
    const cuplas_channel_opts *ch = &cfg->channels;
    int C = (int)g->C, rc = 0;
    char **numbers = calloc((size_t)C, sizeof *numbers);
    const char **names = NULL;
    int transforms = ch->exp.n || ch->sigmoid.n || ch->unit.n || ch->sign.n || ch->groups.n;

    if (!numbers)
        return cuplas_error_set(err, CUPLAS_ERR_NOMEM, "out of memory");
    for (int c = 0; c < C; c++)
        if (asprintf(&numbers[c], "%d", c) < 0)
            CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
    if (!(names = column_names(g, numbers)))
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");

    if (ch->use_names.n || transforms) {
        if (!(j->use = malloc((size_t)C * sizeof *j->use)))
            CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
        if (ch->use_names.n) {
            CUPLAS_TRY(resolve(j, "channels.use", &ch->use_names, 0, ch->use_names.n, names, C,
                               j->use, &j->nuse, err));
        } else if (ch->use) {   /* indices: checked against C at prep */
            for (int k = 0; k < ch->nuse; k++)
                if (ch->use[k] >= C) {
                    free(j->use);
                    j->use = NULL;
                    goto crop;   /* the job fails at prep, as before */
                }
            memcpy(j->use, ch->use, (size_t)ch->nuse * sizeof *j->use);
            j->nuse = ch->nuse;
        } else {
            for (int c = 0; c < C; c++)
                j->use[c] = c;
            j->nuse = C;
        }
        if (ch->nweights && ch->nweights != j->nuse)
            CUPLAS_FAIL(err, CUPLAS_ERR_USAGE, "channels.weights: %d weight%s for %d used "
                        "channel%s", ch->nweights, ch->nweights == 1 ? "" : "s", j->nuse,
                        j->nuse == 1 ? "" : "s");
    }
    if (transforms && j->use) {
        if (!(j->act = calloc((size_t)j->nuse, 1)) || !(j->unit = calloc((size_t)j->nuse, 1)) ||
            !(j->sign = calloc((size_t)j->nuse, 1)))
            CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
        CUPLAS_TRY(mark(j, "channels.exp", &ch->exp, names, C, j->act, 1, err));
        CUPLAS_TRY(mark(j, "channels.sigmoid", &ch->sigmoid, names, C, j->act, 2, err));
        CUPLAS_TRY(mark(j, "channels.unit", &ch->unit, names, C, j->unit, 1, err));
        CUPLAS_TRY(mark(j, "channels.sign", &ch->sign, names, C, j->sign, 1, err));
        if (ch->groups.n)
            CUPLAS_TRY(plan_groups(j, cfg, names, C, err));
    }
crop:
    if (j->crop) {
        const char *sel[1] = {cfg->grid.crop_by};
        char *where[1] = {(char *)cfg->grid.crop_by_where};
        cuplas_selectors s = {(char **)sel, where, 1};
        int col, k;
        CUPLAS_TRY(resolve(j, "grid.crop_by", &s, 0, 1, names, C, &col, &k, err));
        j->crop_col = col;
    }
fail:
    for (int c = 0; c < C; c++)
        free(numbers[c]);
    free(numbers);
    free(names);
    return rc;
}

int cuplas_job_plan_grid(cuplas_job *j, const cuplas_config *cfg, const cuplas_h5grid *g,
                         cuplas_error *err)
{
    int64_t n = g->H * g->W, H = 0, W = 0;
    int refit = j->fitting;

    j->crop = 0;
    if (refit) {
        int crop = cfg->grid.fit == CUPLAS_FIT_CROP;
        if (cfg->grid.shape[0] > 0) {
            H = cfg->grid.shape[0];
            W = cfg->grid.shape[1];
        } else if (!j->scene && j->height > 0 && j->width > 0) {
            H = j->height;
            W = j->width;
        } else if (cfg->grid.shape[0] == -2) {
            cuplas_fit_square_shape(n, crop, &H, &W);
        } else {
            cuplas_fit_auto_shape(n, crop, &H, &W);
        }
        if (H * W > n && crop) {
            cuplas_error_set(&j->err, CUPLAS_ERR_INPUT, "grid %lldx%lld has more cells than "
                             "the N = %lld items (grid.fit: crop needs H*W <= N)",
                             (long long)H, (long long)W, (long long)n);
        } else if (H * W < n && !crop) {
            cuplas_error_set(&j->err, CUPLAS_ERR_INPUT, "grid %lldx%lld has fewer cells than "
                             "the N = %lld items (set grid.fit: crop, or a larger grid)",
                             (long long)H, (long long)W, (long long)n);
        }
        if (j->err.code) {
            cuplas_error_where(&j->err, "%s:%s", j->file, j->dataset);
            return 0;
        }
        j->H = H;
        j->W = W;
        if (H * W == n) {   /* exact: a plain reshape */
            j->read_height = H;
            j->read_width = W;
        } else {
            j->nrows = n;
            j->crop = crop;
            j->read_height = 0;
            j->read_width = 1;
        }
    }
    return plan_names(j, cfg, g, err);
}

const char *cuplas_job_fit_identity(const cuplas_job *j, char *buf, size_t size)
{
    buf[0] = '\0';
    if (j->nrows)
        snprintf(buf, size, " grid=%" PRId64 "x%" PRId64 " fit=%s%s%d", j->H, j->W,
                 j->crop ? "crop" : "pad", j->crop ? ":" : "", j->crop ? j->crop_col : 0);
    else if (j->scene)
        snprintf(buf, size, " grid=%" PRId64 "x%" PRId64, j->H, j->W);
    return buf;
}
