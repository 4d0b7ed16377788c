/*
 * progress.c - the run's progress line (progress.h).
 *
 * Why a thread: a job ends rarely when grids are large, and a sort of a
 * 8192^2 grid takes seconds, so the line is also redrawn on a timer while
 * sorts run, with the levels they have done. Nothing here decides
 * anything: it reads the runner's counters and draws.
 */
#define _GNU_SOURCE /* pthread_setname_np */
#include "pipeline/progress.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "util/clock.h"
#include "util/log.h"

/* "[#####.....] 12/64 datasets, 3.1 grids/s, ETA 17 s; level 40/122" on
 * a terminal: finished jobs, then the levels done of (at most 3) sorts
 * running now. */
static void draw(cuplas_runner *r, int done)
{
    char bar[21], text[256];
    int n = r->jobs->n, shown = 0;
    double el = cuplas_now_s() - r->t_start, rate = el > 0 ? done / el : 0;
    int fill = n ? 20 * done / n : 20;
    for (int k = 0; k < 20; k++)
        bar[k] = k < fill ? '#' : '.';
    bar[20] = 0;
    size_t len = (size_t)snprintf(text, sizeof text, "cuplas: [%s] %d/%d datasets, %.2f grids/s,"
                                  " ETA %.0f s", bar, done, n, rate,
                                  rate > 0 ? (n - done) / rate : 0.0);
    /* racy reads of counters other threads write: a display, never a
       decision; a GPU sort of up to 2^22 cells counts its levels only
       when it ends (cuda/sort_gpu.cu) */
    for (int k = 0; k < r->nworkers && shown < 3 && len < sizeof text - 40; k++) {
        int i = r->workers[k].sorting - 1;
        if (i < 0 || i >= n)
            continue;
        const cuplas_job_result *res = &r->results[i];
        int total = res->levels_total, lv = *(const volatile int *)&res->stats.levels;
        if (total <= 0)
            continue;
        len += (size_t)snprintf(text + len, sizeof text - len, "%s %d/%d", shown ? "," : "; level",
                                lv < total ? lv : total, total);
        shown++;
    }
    cuplas_log_progress(r->log, text);
}

void cuplas_progress_job_done(cuplas_runner *r)
{
    cuplas_lock_take(&r->queue_lock);
    int done = ++r->finished;
    cuplas_lock_give(&r->queue_lock);
    draw(r, done);
}

/* The ticker: on a terminal, the progress line is redrawn every
 * TICK_S while the run runs, so a long sort shows its levels. */
#define TICK_S 0.5

typedef struct cuplas_ticker {
    pthread_t t;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int stop;
    cuplas_runner *r;
} cuplas_ticker;

static void *tick(void *p)
{
    cuplas_ticker *tk = p;
    pthread_setname_np(pthread_self(), "cuplas-progress");
    pthread_mutex_lock(&tk->mu);
    while (!tk->stop) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += (long)(TICK_S * 1e9);
        ts.tv_sec += ts.tv_nsec / 1000000000L;
        ts.tv_nsec %= 1000000000L;
        pthread_cond_timedwait(&tk->cv, &tk->mu, &ts);
        if (tk->stop)
            break;
        cuplas_lock_take(&tk->r->queue_lock);
        int done = tk->r->finished;
        cuplas_lock_give(&tk->r->queue_lock);
        draw(tk->r, done);
    }
    pthread_mutex_unlock(&tk->mu);
    return NULL;
}

/* Only where a progress line is drawn at all (a terminal, text log). */
void cuplas_ticker_start(cuplas_runner *r)
{
    cuplas_ticker *tk;
    if (r->log->json || !r->log->out || !isatty(fileno(r->log->out)) ||
        !(tk = calloc(1, sizeof *tk)))
        return;
    tk->r = r;
    pthread_mutex_init(&tk->mu, NULL);
    pthread_cond_init(&tk->cv, NULL);
    if (pthread_create(&tk->t, NULL, tick, tk) != 0) {
        pthread_cond_destroy(&tk->cv);
        pthread_mutex_destroy(&tk->mu);
        free(tk);
        return;
    }
    r->ticker = tk;
}

void cuplas_ticker_stop(cuplas_runner *r)
{
    cuplas_ticker *tk = r->ticker;
    if (!tk)
        return;
    pthread_mutex_lock(&tk->mu);
    tk->stop = 1;
    pthread_cond_signal(&tk->cv);
    pthread_mutex_unlock(&tk->mu);
    pthread_join(tk->t, NULL);
    pthread_cond_destroy(&tk->cv);
    pthread_mutex_destroy(&tk->mu);
    free(tk);
    r->ticker = NULL;
}
