/*
 * stage_write_stream.c - the write stage of a large compressed result:
 * chunks are stored while later ones are still being encoded.
 *
 * Why: for 4096^2 x 16 float32 with default outputs the write took as long
 * as the GPU sort, encode (1.11 s, all cores) and then the HDF5 thread's
 * H5Dwrite_chunk calls (0.80 s) one after the other (r23). Here a helper
 * thread runs the encoding loop (on the pool, or OpenMP for the CPU
 * backend) in the order the file stores the chunks (index's, then
 * sorted's), and the lane hands the HDF5 thread the chunks done so far,
 * a few at a time, while the rest encode. Each batch is its own visit of
 * the HDF5 thread, so other lanes' reads and writes run between them and
 * the HDF5 thread never waits for the encoder. With output.fsync the
 * lane starts each batch's writeback at once (sync_file_range), so the
 * fsync before the rename waits for the last batches only.
 *
 * Same bytes: the session makes the HDF5 calls of the one-visit write in
 * the same order (h5_write.h, cuplas_h5_wstream), and a result whose
 * encoded data turns out to be at most CUPLAS_H5_IMAGE_MAX_BYTES is left
 * to the one-visit path (built in memory), as before: the lane opens the
 * file only once more than that many bytes are encoded.
 */
#define _GNU_SOURCE
#include "cuplas_build.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "io/codec.h"
#include "io/h5_write.h"
#include "io/publish.h"
#include "pipeline/job_ctx.h"
#include "util/clock.h"
#include "util/side.h"
#include "util/threads.h"

/* Chunks a visit waits for (unless the encoding has ended): about 8 MiB
 * of 1 MiB chunks, a few milliseconds of the HDF5 thread. */
#define BATCH_ITEMS 8

typedef struct encoder {
    job_ctx *j;
    cuplas_h5_encoded *enc;
    cuplas_h5_encode_progress prog;
    int rc;
    cuplas_error err;
    double t_end;
} encoder;

/* On the side thread (with the caller's OpenMP team size, for the loops
 * that run without a pool). */
static void encode_side(void *p)
{
    encoder *x = p;
    x->rc = cuplas_h5_encode_run(&x->j->g, x->j->index, x->enc, x->j->r->pool, &x->prog, &x->err);
    x->t_end = cuplas_now_s();
}

/* The session's visits of the HDF5 thread. */
typedef struct session_task {
    int op;            /* 0 open, 1 put, 2 close, 3 abort */
    const char *tmp;
    job_ctx *j;
    cuplas_h5_encoded *enc;
    cuplas_h5_wstream *s;
    size_t upto;
    const cuplas_result_meta *meta;
    cuplas_error *e;
    int rc;
} session_task;

static void session_run(void *p)
{
    session_task *t = p;
    switch (t->op) {
    case 0: t->rc = cuplas_h5_wstream_open(t->tmp, &t->j->g, t->enc, &t->s, t->e); break;
    case 1: t->rc = cuplas_h5_wstream_put(t->s, t->upto, t->e); break;
    case 2: t->rc = cuplas_h5_wstream_close(t->s, t->meta, t->e); t->s = NULL; break;
    default: cuplas_h5_wstream_abort(t->s); t->s = NULL; break;
    }
}

int cuplas_stage_write_streamed(job_ctx *j, const cuplas_result_meta *meta,
                                void (*before_attrs)(void *), void *arg,
                                cuplas_h5_encoded **enc_out, char **tmp_out, double t0,
                                cuplas_error *e)
{
    const cuplas_config *cfg = j->r->cfg;
    encoder x = {.j = j};
    session_task st = {.j = j, .meta = meta, .e = e};
    cuplas_side side = {0};
    char *tmp = NULL;
    size_t total, done = 0;
    int rc = 0, fin = 0, wb_fd = -1;

    *enc_out = NULL;
    *tmp_out = NULL;
    cuplas_error_clear(&x.err);
    CUPLAS_TRY(cuplas_h5_encode_plan(&j->g, j->index, &cfg->output, &j->w->io, &x.enc, e));
    total = 2 * x.enc->nchunks;
    if (cuplas_h5_encode_progress_init(&x.prog, x.enc) != 0)
        CUPLAS_FAIL(e, CUPLAS_ERR_NOMEM, "out of memory");
    if (!cuplas_side_start(&side, encode_side, &x, cuplas_max_threads()))
        goto joined;   /* no thread: encoded here; the one-visit write follows */
    /* more than an in-memory file's worth encoded: the file goes to disk */
    cuplas_h5_encode_wait(&x.prog, SIZE_MAX, CUPLAS_H5_IMAGE_MAX_BYTES, NULL, &fin);
    if (fin)
        goto join;   /* small, or failed: as before */
    if (!(tmp = cuplas_tmp_create(j->job->output, e))) {
        rc = e->code ? (int)e->code : CUPLAS_ERR_OUTPUT;
        goto join;
    }
    st.tmp = tmp;
    st.enc = x.enc;
    st.op = 0;
    cuplas_job_h5_visit(j, session_run, &st);
    if ((rc = st.rc) != 0)
        goto join;
    /* with output.fsync, each batch's pages head for the disk while later
       ones encode: the fsync before the rename then waits for the tail
       only, not for the whole file */
    if (cfg->output.fsync)
        wb_fd = open(tmp, O_RDONLY);
    while (done < total) {
        size_t want = done + BATCH_ITEMS < total ? done + BATCH_ITEMS : total;
        size_t ready = cuplas_h5_encode_wait(&x.prog, want, SIZE_MAX, NULL, &fin);
        if (fin < 0)
            break;   /* the encoder's error is the job's */
        if (ready <= done)
            continue;
        st.op = 1;
        st.upto = ready;
        cuplas_job_h5_visit(j, session_run, &st);
        if ((rc = st.rc) != 0)
            break;
        done = ready;
        cuplas_tmp_writeback(wb_fd);
    }
    if (rc == 0 && done == total) {
        before_attrs(arg);
        st.op = 2;
        cuplas_job_h5_visit(j, session_run, &st);
        rc = st.rc;
    }
join:
    if (wb_fd >= 0)
        close(wb_fd);
    cuplas_side_join(&side);
joined:
    if (st.s) {   /* failed between open and close */
        st.op = 3;
        cuplas_job_h5_visit(j, session_run, &st);
    }
    if (rc)   /* the file's failure names the output, as the one-visit write's */
        cuplas_error_where(e, "%s:%s", j->job->output, j->job->dataset);
    else if (x.rc) {   /* the encoder's names the input */
        *e = x.err;
        rc = x.rc;
    }
    j->res->encode_s = x.t_end - t0;
    if (rc == 0) {
        *enc_out = x.enc;
        x.enc = NULL;
        *tmp_out = tmp;   /* NULL: left to the one-visit write */
        tmp = NULL;
    }
fail:
    if (tmp) {
        unlink(tmp);
        free(tmp);
    }
    cuplas_h5_encode_progress_free(&x.prog);
    cuplas_h5_encoded_free(x.enc);
    return rc;
}
