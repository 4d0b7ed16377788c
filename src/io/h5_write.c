/*
 * h5_write.c - build a result's HDF5 file from encoded chunks
 * (h5_write.h). HDF5 calls.
 *
 * Design fact: the HDF5 thread is the pipeline's ceiling for many small
 * grids, so it does only what needs HDF5: metadata, H5Dwrite_chunk of
 * chunks encoded elsewhere, and for uncompressed data just the space
 * (the bytes go with pwrite, publish.c). A small file is built whole in
 * memory (core driver) and stored by the caller, so that the HDF5 thread
 * makes no file system call for it.
 */
#include "io/h5_write.h"
#include "io/h5_lib.h"
#include "io/publish.h"

#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/fsutil.h"

/* The core driver grows its buffer by data + slack. */
#define IMAGE_SLACK_BYTES ((size_t)256 << 10)
#define CAUSE_LEN CUPLAS_H5_CAUSE_LEN
#define h5_cause cuplas_h5_cause

/* Dataset creation properties: chunk, then shuffle, then deflate; chunk
 * NULL: contiguous, allocated early, no fill. */
static int make_dcpl(int rank, const hsize_t *chunk, int shuffle, int deflate, hid_t *dcpl_out,
                     cuplas_error *err)
{
    hid_t dcpl = H5I_INVALID_HID;
    int rc = 0;

    /* no modification times: the same result gives the same bytes */
    if ((dcpl = H5Pcreate(H5P_DATASET_CREATE)) < 0 || H5Pset_obj_track_times(dcpl, 0) < 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_OUTPUT, "cannot create dataset properties");
    if (!chunk) {
        /* space allocated at creation and never filled: the data goes
           straight to its offset (write_raw), without a second pass */
        if (H5Pset_layout(dcpl, H5D_CONTIGUOUS) < 0 ||
            H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY) < 0 ||
            H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER) < 0)
            CUPLAS_FAIL(err, CUPLAS_ERR_OUTPUT, "cannot set up a contiguous layout");
        goto done;
    }
    if (H5Pset_chunk(dcpl, rank, chunk) < 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_OUTPUT, "cannot set up chunking");
    if (shuffle && (H5Zfilter_avail(H5Z_FILTER_SHUFFLE) <= 0 || H5Pset_shuffle(dcpl) < 0))
        CUPLAS_FAIL(err, CUPLAS_ERR_OUTPUT, "shuffle filter not available in this HDF5");
    if (deflate > 0 && (H5Zfilter_avail(H5Z_FILTER_DEFLATE) <= 0 ||
                        H5Pset_deflate(dcpl, (unsigned)deflate) < 0))
        CUPLAS_FAIL(err, CUPLAS_ERR_OUTPUT, "deflate filter not available in this HDF5");
done:
    *dcpl_out = dcpl;
    dcpl = H5I_INVALID_HID;
fail:
    if (dcpl >= 0) H5Pclose(dcpl);
    return rc;
}

/* A dataset being written: its ids, open from ds_create to ds_close. */
typedef struct ds_ids {
    hid_t sid, dcpl, did;
} ds_ids;

#define DS_NONE {H5I_INVALID_HID, H5I_INVALID_HID, H5I_INVALID_HID}

/* Create dataset `name` (rank 2 or 3). Compressed: chunked (chunk_rows
 * rows a chunk); the dcpl names the filters the chunks went through.
 * Uncompressed: contiguous, and *raw_at gets the data's file offset: the
 * bytes are left to write_raw, outside the serialised HDF5 calls. */
static int ds_create(hid_t gid, const char *name, hid_t type, int rank, const hsize_t *dims,
                     const hsize_t *chunk, const cuplas_h5_encoded *e, ds_ids *d,
                     uint64_t *raw_at, cuplas_error *err)
{
    int rc = 0;
    char cause[CAUSE_LEN];

    CUPLAS_TRY(make_dcpl(rank, e->deflate ? chunk : NULL, e->shuffle, e->deflate, &d->dcpl, err));
    if ((d->sid = H5Screate_simple(rank, dims, NULL)) < 0 ||
        (d->did = H5Dcreate2(gid, name, type, d->sid, H5P_DEFAULT, d->dcpl, H5P_DEFAULT)) < 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_OUTPUT, "cannot create dataset %s (%s)", name,
                    h5_cause(cause));
    if (!e->deflate) {
        haddr_t at = H5Dget_offset(d->did);
        if (at == HADDR_UNDEF)
            CUPLAS_FAIL(err, CUPLAS_ERR_OUTPUT, "no storage allocated for %s", name);
        *raw_at = (uint64_t)at;
    }
fail:
    return rc;
}

/* Store chunks [from, to) as they are (H5Dwrite_chunk). */
static int ds_put(const ds_ids *d, const char *name, const cuplas_h5_chunk *c,
                  const cuplas_h5_encoded *e, size_t from, size_t to, cuplas_error *err)
{
    char cause[CAUSE_LEN];
    for (size_t ci = from; ci < to; ci++) {
        hsize_t offset[3] = {(hsize_t)ci * (hsize_t)e->chunk_rows, 0, 0};
        if (H5Dwrite_chunk(d->did, H5P_DEFAULT, 0, offset, c[ci].size, c[ci].data) < 0)
            return cuplas_error_set(err, CUPLAS_ERR_OUTPUT, "cannot write %s at row %llu (%s)",
                                    name, (unsigned long long)offset[0], h5_cause(cause));
    }
    return 0;
}

/* Close d's ids (dataset first); rc: the caller's status so far. */
static int ds_close(ds_ids *d, const char *name, int rc, cuplas_error *err)
{
    char cause[CAUSE_LEN];
    if (d->did >= 0 && H5Dclose(d->did) < 0 && !rc)
        rc = cuplas_error_set(err, CUPLAS_ERR_OUTPUT, "cannot close %s (%s)", name,
                              h5_cause(cause));
    if (d->dcpl >= 0) H5Pclose(d->dcpl);
    if (d->sid >= 0) H5Sclose(d->sid);
    d->did = d->dcpl = d->sid = H5I_INVALID_HID;
    return rc;
}

/* One attribute: `type` in the file, `mtype` in memory, `n` values (0 = scalar). */
static int put_attr(hid_t obj, const char *name, hid_t type, hid_t mtype, hsize_t n,
                    const void *val)
{
    hid_t sid = H5I_INVALID_HID, aid = H5I_INVALID_HID;
    int ok = 0;

    if ((sid = n ? H5Screate_simple(1, &n, NULL) : H5Screate(H5S_SCALAR)) < 0)
        goto fail;
    if ((aid = H5Acreate2(obj, name, type, sid, H5P_DEFAULT, H5P_DEFAULT)) < 0)
        goto fail;
    ok = H5Awrite(aid, mtype, val) >= 0;
fail:
    if (aid >= 0 && H5Aclose(aid) < 0)
        ok = 0;
    if (sid >= 0) H5Sclose(sid);
    return ok ? 0 : -1;
}

/* Variable-length UTF-8 strings: h5py reads them as str, h5dump prints them. */
static int put_str(hid_t obj, const char *name, const char *s)
{
    hid_t tid = H5I_INVALID_HID;
    const char *v = s ? s : "";
    int rc = -1;

    if ((tid = H5Tcopy(H5T_C_S1)) < 0 || H5Tset_size(tid, H5T_VARIABLE) < 0 ||
        H5Tset_cset(tid, H5T_CSET_UTF8) < 0)
        goto fail;
    rc = put_attr(obj, name, tid, tid, 0, &v);
fail:
    if (tid >= 0) H5Tclose(tid);
    return rc;
}

/* `channel_names`: one variable-length UTF-8 string per channel of sorted. */
static int put_names(hid_t obj, const cuplas_h5grid *in)
{
    hid_t tid = H5I_INVALID_HID;
    int rc = -1;

    if ((tid = H5Tcopy(H5T_C_S1)) < 0 || H5Tset_size(tid, H5T_VARIABLE) < 0 ||
        H5Tset_cset(tid, H5T_CSET_UTF8) < 0)
        goto fail;
    rc = put_attr(obj, "channel_names", tid, tid, (hsize_t)in->C, in->names);
fail:
    if (tid >= 0) H5Tclose(tid);
    return rc;
}

/* `dropped`: the input rows a crop left out, int64, ascending (written
 * whole: it is small next to sorted). */
static int write_dropped(hid_t gid, const cuplas_h5grid *in, cuplas_error *err)
{
    hid_t sid = H5I_INVALID_HID, dcpl = H5I_INVALID_HID, did = H5I_INVALID_HID;
    hsize_t n = (hsize_t)in->ndropped;
    char cause[CAUSE_LEN];
    int rc = 0;

    if ((dcpl = H5Pcreate(H5P_DATASET_CREATE)) < 0 || H5Pset_obj_track_times(dcpl, 0) < 0 ||
        (sid = H5Screate_simple(1, &n, NULL)) < 0 ||
        (did = H5Dcreate2(gid, "dropped", H5T_STD_I64LE, sid, H5P_DEFAULT, dcpl,
                          H5P_DEFAULT)) < 0 ||
        (n && H5Dwrite(did, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, in->dropped) < 0))
        rc = cuplas_error_set(err, CUPLAS_ERR_OUTPUT, "cannot write dataset dropped (%s)",
                              h5_cause(cause));
    if (did >= 0 && H5Dclose(did) < 0 && !rc)
        rc = cuplas_error_set(err, CUPLAS_ERR_OUTPUT, "cannot close dropped");
    if (dcpl >= 0) H5Pclose(dcpl);
    if (sid >= 0) H5Sclose(sid);
    return rc;
}

static int write_attrs(hid_t gid, const cuplas_h5grid *in, const cuplas_result_meta *m,
                       cuplas_error *err)
{
    static const cuplas_result_meta none = {0};
    const int one = 1;
    char cause[CAUSE_LEN];

    if (!m)
        m = &none;
    if (put_str(gid, "params", m->params_yaml) < 0 ||
        put_attr(gid, "seed", H5T_STD_U64LE, H5T_NATIVE_UINT64, 0, &m->seed) < 0 ||
        put_str(gid, "cuplas_version", m->version) < 0 ||
        put_str(gid, "input_file", in->file) < 0 ||
        put_str(gid, "input_dataset", in->dataset) < 0 ||
        put_attr(gid, "input_shape", H5T_STD_I64LE, H5T_NATIVE_INT64, (hsize_t)in->in_rank,
                 in->in_dims) < 0 ||
        put_str(gid, "input_dtype", in->dtype) < 0 ||
        put_attr(gid, "and_before", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 0, &m->and_before) < 0 ||
        put_attr(gid, "and_after", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 0, &m->and_after) < 0 ||
        put_attr(gid, "wall_seconds", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 0,
                 &m->wall_seconds) < 0 ||
        put_str(gid, "backend", m->backend) < 0 ||
        put_str(gid, "device", m->device_name) < 0 ||
        put_str(gid, "identity", m->identity) < 0 ||
        (in->names && put_names(gid, in) < 0) ||
        /* only with run's eval step: outputs without it stay as they were */
        (m->eval_json && put_str(gid, "eval", m->eval_json) < 0) ||
        /* what a rerun holds the PLY on disk against (cuplas_job_extra_missing) */
        (m->sorted_ply && m->sorted_ply[0] && put_str(gid, "sorted_ply", m->sorted_ply) < 0) ||
        /* and the SOG folder against (the same) */
        (m->sog && put_str(gid, "sog", m->sog) < 0) ||
        /* last: a reader that sees complete=1 sees everything above */
        put_attr(gid, "complete", H5T_STD_I32LE, H5T_NATIVE_INT, 0, &one) < 0)
        return cuplas_error_set(err, CUPLAS_ERR_OUTPUT, "cannot write attributes (%s)",
                                h5_cause(cause));
    return 0;
}

/* Drop the raw data regions (zeros in an image) from enc->image, keeping
 * the pieces around them back to back: 200 KiB of zeros for a 256^2 x 3
 * result need not be copied. */
static void compact_image(cuplas_h5_encoded *enc)
{
    uint64_t end = enc->image_size, cut[2][2] = {{end, end}, {end, end}};
    if (!enc->deflate) {
        size_t cells = (size_t)(enc->H * enc->W);
        cut[0][0] = enc->raw_at[0];
        cut[0][1] = enc->raw_at[0] + cells * cuplas_h5_cell_bytes(enc, 0);
        cut[1][0] = enc->raw_at[1];
        cut[1][1] = enc->raw_at[1] + cells * cuplas_h5_cell_bytes(enc, 1);
    }
    int lo = cut[0][0] <= cut[1][0] ? 0 : 1;   /* the region that comes first */
    uint64_t from[3] = {0, cut[lo][1], cut[!lo][1]};
    uint64_t to[3] = {cut[lo][0], cut[!lo][0], end};
    size_t kept = 0;

    enc->nseg = 0;
    for (int k = 0; k < CUPLAS_H5_IMAGE_SEGS; k++) {
        uint64_t a = from[k] < end ? from[k] : end, b = to[k] < end ? to[k] : end;
        if (a >= b)
            continue;
        memmove(enc->image + kept, enc->image + a, (size_t)(b - a));
        enc->seg[enc->nseg][0] = a;
        enc->seg[enc->nseg][1] = b - a;
        enc->nseg++;
        kept += (size_t)(b - a);
    }
}

/* The in-memory file's bytes into enc->image (compacted). The flush comes
 * first: the image of an unflushed file keeps the superblock of
 * H5Fcreate (its end of file 2048 bytes), which no reader opens. */
static int take_image(hid_t fid, cuplas_h5_encoded *enc, const char *tmp, cuplas_error *err)
{
    char cause[CAUSE_LEN];
    ssize_t n = H5Fflush(fid, H5F_SCOPE_GLOBAL) < 0 ? -1 : H5Fget_file_image(fid, NULL, 0);

    if (n <= 0 || !(enc->image = malloc((size_t)n)) ||
        H5Fget_file_image(fid, enc->image, (size_t)n) != n)
        return cuplas_error_set(err, n > 0 && !enc->image ? CUPLAS_ERR_NOMEM : CUPLAS_ERR_OUTPUT,
                                "cannot build %s in memory (%s)", tmp, h5_cause(cause));
    enc->image_size = (size_t)n;
    compact_image(enc);
    return 0;
}

/* ------------------------------------------------- the writing session */

/* One result file being written: the file, its group, and the dataset open
 * now. The one-visit write (cuplas_h5_write_encoded_to) and the streamed
 * write (cuplas_h5_wstream_*) are the same session, so they make the same
 * HDF5 calls in the same order and write the same bytes: index's chunks,
 * then sorted's, then the dropped rows and the attributes. */
struct cuplas_h5_wstream {
    hid_t type, fapl, lcpl, gcpl, fid, gid;
    ds_ids d;                 /* the dataset open now                       */
    int open_which;           /* 1 index, 0 sorted, -1 none                 */
    size_t next;              /* items stored (index's chunks, then sorted's) */
    int in_memory;            /* core driver: the file is built in memory   */
    const cuplas_h5grid *in;
    cuplas_h5_encoded *enc;
    char *tmp;
};

/* Create dataset `index` (which 1) or `sorted` (0); uncompressed, its
 * data's file offset goes to enc->raw_at[which] (write_raw stores it). */
static int ws_create(cuplas_h5_wstream *s, int which, cuplas_error *err)
{
    const cuplas_h5grid *in = s->in;
    cuplas_h5_encoded *enc = s->enc;
    s->open_which = which;
    if (which) {
        hsize_t idims[2] = {(hsize_t)in->H, (hsize_t)in->W};
        hsize_t ichunk[2] = {(hsize_t)enc->chunk_rows, (hsize_t)in->W};
        return ds_create(s->gid, "index", enc->wide ? H5T_STD_I64LE : H5T_STD_I32LE, 2, idims,
                         ichunk, enc, &s->d, &enc->raw_at[1], err);
    }
    hsize_t sdims[3] = {(hsize_t)in->H, (hsize_t)in->W, (hsize_t)in->C};
    hsize_t schunk[3] = {(hsize_t)enc->chunk_rows, (hsize_t)in->W, (hsize_t)in->C};
    return ds_create(s->gid, "sorted", s->type, 3, sdims, schunk, enc, &s->d, &enc->raw_at[0],
                     err);
}

/* The file, its group and dataset `index`. SEMI: H5Fclose fails (instead
 * of silently deferring) if an id leaked. in_memory: the core driver with
 * no backing store, so the HDF5 thread makes no file system call at all
 * and write_raw stores the image on the caller's thread. */
static int ws_begin(const char *tmp, const cuplas_h5grid *in, cuplas_h5_encoded *enc,
                    int in_memory, cuplas_h5_wstream **out, cuplas_error *err)
{
    cuplas_h5_wstream *s = calloc(1, sizeof *s);
    char cause[CAUSE_LEN];
    int rc = 0;

    *out = NULL;
    if (!s || !(s->tmp = strdup(tmp))) {
        free(s);
        return cuplas_error_set(err, CUPLAS_ERR_NOMEM, "out of memory");
    }
    s->type = s->fapl = s->lcpl = s->gcpl = s->fid = s->gid = H5I_INVALID_HID;
    s->d = (ds_ids)DS_NONE;
    s->open_which = -1;
    s->in_memory = in_memory;
    s->in = in;
    s->enc = enc;
    enc->raw_pending = 0;
    if ((s->type = (hid_t)cuplas_h5_type_create(&in->type)) < 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_INTERNAL, "cannot make the %s type (%s)", in->dtype,
                    h5_cause(cause));
    if ((s->fapl = H5Pcreate(H5P_FILE_ACCESS)) < 0 ||
        H5Pset_fclose_degree(s->fapl, H5F_CLOSE_SEMI) < 0 ||
        (in_memory &&
         H5Pset_fapl_core(s->fapl, cuplas_h5_encoded_bytes(enc) + IMAGE_SLACK_BYTES, 0) < 0) ||
        (s->fid = H5Fcreate(tmp, H5F_ACC_TRUNC, H5P_DEFAULT, s->fapl)) < 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_OUTPUT, "cannot create %s (%s)", tmp, h5_cause(cause));
    if ((s->lcpl = H5Pcreate(H5P_LINK_CREATE)) < 0 ||
        H5Pset_create_intermediate_group(s->lcpl, 1) < 0 ||
        (s->gcpl = H5Pcreate(H5P_GROUP_CREATE)) < 0 || H5Pset_obj_track_times(s->gcpl, 0) < 0 ||
        (s->gid = H5Gcreate2(s->fid, in->dataset, s->lcpl, s->gcpl, H5P_DEFAULT)) < 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_OUTPUT, "cannot create group %s (%s)", in->dataset,
                    h5_cause(cause));
    CUPLAS_TRY(ws_create(s, 1, err));
    *out = s;
    return 0;
fail:
    cuplas_h5_wstream_abort(s);
    return rc;
}

/* Does enc hold the chunks of grid in (with its type)? */
static int encoded_from(const cuplas_h5_encoded *enc, const cuplas_h5grid *in)
{
    return enc && cuplas_dtype_name(&in->type) && enc->H == in->H && enc->W == in->W &&
           enc->C == in->C && enc->elem_size == in->elem_size;
}

int cuplas_h5_wstream_open(const char *tmp, const cuplas_h5grid *in, cuplas_h5_encoded *enc,
                           cuplas_h5_wstream **out, cuplas_error *err)
{
    *out = NULL;
    if (!encoded_from(enc, in) || !enc->deflate)
        return cuplas_error_set(err, CUPLAS_ERR_INTERNAL, "a streamed write needs compressed "
                                "chunks of the grid that was encoded");
    return ws_begin(tmp, in, enc, 0, out, err);
}

int cuplas_h5_wstream_put(cuplas_h5_wstream *s, size_t upto, cuplas_error *err)
{
    const cuplas_h5_encoded *e = s->enc;
    size_t n = e->nchunks;
    int rc = 0;

    if (upto > 2 * n)
        upto = 2 * n;
    while (s->next < upto) {
        if (s->next < n) {   /* index's chunks (uncompressed: write_raw's) */
            size_t to = upto < n ? upto : n;
            if (e->deflate)
                CUPLAS_TRY(ds_put(&s->d, "index", e->index, e, s->next, to, err));
            s->next = to;
            continue;
        }
        if (s->open_which == 1) {   /* index done: then sorted */
            CUPLAS_TRY(ds_close(&s->d, "index", 0, err));
            CUPLAS_TRY(ws_create(s, 0, err));
        }
        if (e->deflate)
            CUPLAS_TRY(ds_put(&s->d, "sorted", e->sorted, e, s->next - n, upto - n, err));
        s->next = upto;
    }
fail:
    return rc;
}

int cuplas_h5_wstream_close(cuplas_h5_wstream *s, const cuplas_result_meta *meta,
                            cuplas_error *err)
{
    char cause[CAUSE_LEN];
    int rc = 0;

    if (s->next != 2 * s->enc->nchunks)
        CUPLAS_FAIL(err, CUPLAS_ERR_INTERNAL, "a write closed with %zu of %zu chunks", s->next,
                    2 * s->enc->nchunks);
    if (s->open_which == 1) {   /* H = 0 cannot happen; kept for the order */
        CUPLAS_TRY(ds_close(&s->d, "index", 0, err));
        CUPLAS_TRY(ws_create(s, 0, err));
    }
    CUPLAS_TRY(ds_close(&s->d, "sorted", 0, err));
    s->open_which = -1;
    if (s->in->dropped)
        CUPLAS_TRY(write_dropped(s->gid, s->in, err));
    CUPLAS_TRY(write_attrs(s->gid, s->in, meta, err));
    if (H5Gclose(s->gid) < 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_OUTPUT, "cannot close group (%s)", h5_cause(cause));
    s->gid = H5I_INVALID_HID;
    if (s->in_memory)
        CUPLAS_TRY(take_image(s->fid, s->enc, s->tmp, err));
    if (H5Fclose(s->fid) < 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_OUTPUT, "cannot close %s (%s)", s->tmp, h5_cause(cause));
    s->fid = H5I_INVALID_HID;
    s->enc->raw_pending = !s->enc->deflate;
fail:
    cuplas_h5_wstream_abort(s);
    return rc;
}

void cuplas_h5_wstream_abort(cuplas_h5_wstream *s)
{
    if (!s)
        return;
    ds_close(&s->d, "", 1, NULL);
    if (s->gid >= 0) H5Gclose(s->gid);
    if (s->type >= 0) H5Tclose(s->type);
    if (s->gcpl >= 0) H5Pclose(s->gcpl);
    if (s->lcpl >= 0) H5Pclose(s->lcpl);
    if (s->fid >= 0) H5Fclose(s->fid);
    if (s->fapl >= 0) H5Pclose(s->fapl);
    free(s->tmp);
    free(s);
}

/* The one-visit write: the whole session at once; a small file is built
 * in memory (cuplas_h5_encoded_in_memory). */
int cuplas_h5_write_encoded_to(const char *tmp, const cuplas_h5grid *in,
                               cuplas_h5_encoded *enc, const cuplas_result_meta *meta,
                               cuplas_error *err)
{
    cuplas_h5_wstream *s = NULL;
    int rc = 0;

    if (!encoded_from(enc, in))
        return cuplas_error_set(err, CUPLAS_ERR_INTERNAL,
                                "write_encoded needs the grid (with its type) that was encoded");
    free(enc->image);
    enc->image = NULL;
    enc->nseg = 0;
    CUPLAS_TRY(ws_begin(tmp, in, enc, cuplas_h5_encoded_in_memory(enc), &s, err));
    if ((rc = cuplas_h5_wstream_put(s, 2 * enc->nchunks, err)) != 0)
        cuplas_h5_wstream_abort(s);
    else
        rc = cuplas_h5_wstream_close(s, meta, err);
fail:
    if (rc) {
        free(enc->image);
        enc->image = NULL;
        enc->nseg = 0;
    }
    return rc;
}

int cuplas_h5_write_encoded(const char *out_path, const cuplas_h5grid *in,
                            cuplas_h5_encoded *enc, const cuplas_result_meta *meta,
                            cuplas_error *err)
{
    char *dir = cuplas_path_dir(out_path), *tmp = NULL;
    int rc = dir ? cuplas_out_dir_check(dir, err) : cuplas_error_set(err, CUPLAS_ERR_NOMEM, "out of memory");

    if (rc == 0 && !(tmp = cuplas_tmp_create(out_path, err)))
        rc = err ? (int)err->code : CUPLAS_ERR_OUTPUT;
    if (rc == 0 && ((rc = cuplas_h5_write_encoded_to(tmp, in, enc, meta, err)) != 0 ||
                    (rc = cuplas_h5_write_raw(tmp, enc, NULL, err)) != 0 ||
                    (rc = cuplas_tmp_publish(tmp, out_path, 1, err)) != 0))
        unlink(tmp);
    if (rc)
        cuplas_error_where(err, "%s:%s", out_path, in->dataset);
    free(dir);
    free(tmp);
    return rc;
}

int cuplas_h5_write_result(const char *out_path, const cuplas_h5grid *in, const int64_t *index,
                           const cuplas_output_opts *opts, const cuplas_result_meta *meta,
                           cuplas_error *err)
{
    cuplas_h5_encoded *enc = NULL;
    int rc = cuplas_h5_encode_result(in, index, opts, NULL, NULL, &enc, err);

    if (rc && err)   /* the output's context, as for a failed write */
        err->where[0] = '\0';
    if (rc == 0)
        rc = cuplas_h5_write_encoded(out_path, in, enc, meta, err);
    cuplas_h5_encoded_free(enc);
    if (rc)
        cuplas_error_where(err, "%s:%s", out_path, in->dataset);
    return rc;
}
