/*
 * h5_read.c - open, check and locate an input grid; probe, list, and read
 * back outputs (h5_read.h). HDF5 calls.
 *
 * Design fact: the read keeps the data in its file type (raw bytes) and
 * describes that type with a plain cuplas_dtype, so that nothing the read
 * returns holds an HDF5 identifier: conversion to double (dtype.c) and
 * freeing the grid need no HDF5 call and no second visit to the HDF5
 * thread. Chunked data with only shuffle/deflate is located here (chunk
 * addresses) and fetched and decoded by codec.c; anything else (szip,
 * fletcher32, contiguous, ...) is read whole through HDF5. Every hid_t
 * starts at H5I_INVALID_HID and is closed in the function's single
 * `fail:`.
 *
 * The rule for the hand decoder: cuplas never reads other data than
 * H5Dread would. It decodes a chunk itself only when it is sure that
 * H5Dread would read the same bytes the same way; on any doubt the whole
 * dataset is read with H5Dread here, on the HDF5 thread, so the outcome
 * (the values, or the error) is HDF5's own (fetch->whole_why says why).
 * A dataset is decoded by hand only when:
 *  - its pipeline is shuffle (one nonzero parameter) and deflate (one
 *    parameter, a level <= 9: HDF5's filter refuses anything else) alone,
 *    and this HDF5 has deflate (fletcher32 always goes to H5Dread, which
 *    verifies the checksums);
 *  - the chunk index agrees with itself: for every chunk, the iteration
 *    that H5Dget_chunk_info_by_coord does and the lookup that H5Dread does
 *    (H5Dget_chunk_storage_size) find the same stored size, or both find
 *    none, and the index holds no record but those (H5Dget_num_chunks):
 *    a damaged index where the two disagree is how a reader that locates
 *    chunks itself reads other bytes than HDF5;
 *  - every stored chunk's filter mask names only filters of the pipeline,
 *    its size fits the chunk (exactly the chunk's bytes when no filter
 *    applies, at most zlib's bound otherwise), and no two chunks overlap.
 * A chunk that both paths locate but that lies outside the file is an
 * error (HDF5 fails to read it too). Decoding (codec.c) then requires each
 * chunk to inflate to exactly the chunk's bytes: HDF5 would pad or cut
 * one that does not, with undefined bytes, so cuplas refuses it.
 *
 * Other files: an external link (on the dataset's path), external raw
 * storage (H5Pset_external) or a virtual dataset with sources in other
 * files would make cuplas copy whatever those name (any readable local
 * file) into its output. They are refused unless the caller allows them
 * (CUPLAS_H5_ALLOW_EXTERNAL: inputs[].allow_external); external links are
 * stopped before HDF5 opens their target (an elink callback), so a link
 * to a FIFO cannot even block the read. Data reached through an allowed
 * link lives in another file: HDF5 reads it whole.
 */
#include "io/h5_read.h"
#include "io/h5_lib.h"

#include <errno.h>
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define READ_SLAB_BYTES ((size_t)64 << 20)   /* bounded H5Dread calls      */
#define READ_CHUNK_CACHE ((size_t)32 << 20)  /* slabs rarely align to chunks */
/* H5Dget_chunk_info_by_coord walks the whole index (HDF5 1.10/1.12): n
 * chunks cost n^2 record visits under the lock (4096: 0.1 s, 16384:
 * 1.7 s). Past this many, H5Dread, which looks chunks up, is faster. */
#define READ_MAX_LOCATED_CHUNKS 4096
#define CAUSE_LEN CUPLAS_H5_CAUSE_LEN
#define h5_cause cuplas_h5_cause

typedef struct elink_ctx {
    int allow, seen;
    char target[512];   /* the first external link met: "file:/object" */
} elink_ctx;

typedef struct list_ctx {
    char **names;
    int count, cap;
    int oom;
} list_ctx;

/* -------------------------------------------------------------- datatypes */

/* Describe a file datatype: 0 and *t, or -1 when cuplas does not take it
 * (not an integer or float, an odd size, or a layout that the standard
 * type of its description would not rebuild exactly: the write recreates
 * `sorted`'s type from *t, and dtype.c decodes only standard layouts). */
static int classify_type(hid_t tid, cuplas_dtype *t)
{
    H5T_class_t cls = H5Tget_class(tid);
    size_t size = H5Tget_size(tid);
    H5T_sign_t sign = cls == H5T_INTEGER ? H5Tget_sign(tid) : H5T_SGN_2;
    hid_t std;
    int same;

    memset(t, 0, sizeof *t);
    if ((cls != H5T_INTEGER && cls != H5T_FLOAT) || sign < 0 ||
        (size != 1 && size != 2 && size != 4 && size != 8) || (cls == H5T_FLOAT && size == 1))
        return -1;
    t->cls = cls == H5T_INTEGER ? CUPLAS_DTYPE_INT : CUPLAS_DTYPE_FLOAT;
    t->size = (int)size;
    t->is_signed = sign == H5T_SGN_2;
    t->big_endian = H5Tget_order(tid) == H5T_ORDER_BE;
    std = (hid_t)cuplas_h5_type_create(t);
    same = std >= 0 && H5Tequal(tid, std) > 0;
    if (std >= 0)
        H5Tclose(std);
    return same ? 0 : -1;
}

static const char *class_name(H5T_class_t cls)
{
    switch (cls) {
    case H5T_STRING: return "string";
    case H5T_COMPOUND: return "compound";
    case H5T_ENUM: return "enum";
    case H5T_OPAQUE: return "opaque";
    case H5T_BITFIELD: return "bitfield";
    case H5T_REFERENCE: return "reference";
    case H5T_VLEN: return "variable-length";
    case H5T_ARRAY: return "array";
    case H5T_TIME: return "time";
    default: return "non-numeric";
    }
}

static char *dataset_path(const char *dataset)
{
    size_t n = strlen(dataset);
    char *p = malloc(n + 2);
    if (!p)
        return NULL;
    if (dataset[0] == '/')
        memcpy(p, dataset, n + 1);
    else {
        p[0] = '/';
        memcpy(p + 1, dataset, n + 1);
    }
    return p;
}

/* Open `file` read-only, telling "missing" from "not HDF5" from "corrupt". */
static int open_input(const char *file, hid_t *fid, cuplas_error *err)
{
    struct stat st;
    char cause[CAUSE_LEN];

    if (stat(file, &st) != 0)
        return cuplas_error_set(err, CUPLAS_ERR_INPUT, "cannot open: %s",
                                errno == ENOENT ? "no such file" : strerror(errno));
    if (S_ISDIR(st.st_mode))
        return cuplas_error_set(err, CUPLAS_ERR_INPUT, "cannot open: is a directory");
    if (access(file, R_OK) != 0)
        return cuplas_error_set(err, CUPLAS_ERR_INPUT, "cannot open: %s", strerror(errno));
    *fid = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (*fid < 0)
        return cuplas_error_set(err, CUPLAS_ERR_INPUT, "not an HDF5 file or corrupt (%s)",
                                h5_cause(cause));
    return 0;
}

/* Read an integer attribute `name` of `obj` into *v; 1 found, 0 absent/unusable. */
static int int_attr(hid_t obj, const char *name, int64_t *v)
{
    hid_t aid = H5I_INVALID_HID, tid = H5I_INVALID_HID, sid = H5I_INVALID_HID;
    int found = 0;

    if (H5Aexists(obj, name) <= 0)
        return 0;
    if ((aid = H5Aopen(obj, name, H5P_DEFAULT)) < 0)
        goto fail;
    if ((tid = H5Aget_type(aid)) < 0 || H5Tget_class(tid) != H5T_INTEGER)
        goto fail;
    if ((sid = H5Aget_space(aid)) < 0 || H5Sget_simple_extent_npoints(sid) != 1)
        goto fail;
    found = H5Aread(aid, H5T_NATIVE_INT64, v) >= 0;
fail:
    if (sid >= 0) H5Sclose(sid);
    if (tid >= 0) H5Tclose(tid);
    if (aid >= 0) H5Aclose(aid);
    return found;
}

/*
 * A "height" or "width" attribute: 0 absent, 1 read into *v, -1 an error
 * (in err).
 * Integers, and floats that hold a whole number (h5py writes 100.0 as
 * readily as 100), are taken; anything else (a string, a fraction, an
 * array) is an error rather than silently ignored: a grid shape taken
 * from the wrong place sorts the wrong neighbours.
 */
static int shape_attr(hid_t did, const char *name, int64_t *v, cuplas_error *err)
{
    hid_t aid = H5I_INVALID_HID, tid = H5I_INVALID_HID, sid = H5I_INVALID_HID;
    H5T_class_t cls;
    double d = 0;
    int rc = 0, found = 0;

    if (H5Aexists(did, name) <= 0)
        return 0;
    if ((aid = H5Aopen(did, name, H5P_DEFAULT)) < 0 || (tid = H5Aget_type(aid)) < 0 ||
        (sid = H5Aget_space(aid)) < 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "cannot read the %s attribute", name);
    cls = H5Tget_class(tid);
    if (cls != H5T_INTEGER && cls != H5T_FLOAT)
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "the %s attribute is a %s; store a whole number",
                    name, class_name(cls));
    if (H5Sget_simple_extent_npoints(sid) != 1)
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "the %s attribute holds %lld values; store one",
                    name, (long long)H5Sget_simple_extent_npoints(sid));
    if (cls == H5T_INTEGER) {
        if (H5Aread(aid, H5T_NATIVE_INT64, v) < 0)
            CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "cannot read the %s attribute", name);
    } else {
        if (H5Aread(aid, H5T_NATIVE_DOUBLE, &d) < 0)
            CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "cannot read the %s attribute", name);
        if (!(d == floor(d) && fabs(d) < 9.0e18))
            CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "the %s attribute is %g, not a whole number",
                        name, d);
        *v = (int64_t)d;
    }
    found = 1;
fail:
    if (sid >= 0) H5Sclose(sid);
    if (tid >= 0) H5Tclose(tid);
    if (aid >= 0) H5Aclose(aid);
    return rc ? -1 : found;
}

/* Resolve (H, W) of an (N, C) dataset: arguments, then attributes (one
 * alone fixes the other, as for arguments), then sqrt. */
static int grid_shape_2d(hid_t did, int64_t n, int64_t height, int64_t width,
                         int64_t *H, int64_t *W, cuplas_error *err)
{
    if (height <= 0 && width <= 0) {
        int64_t ah = 0, aw = 0;
        int hh = shape_attr(did, "height", &ah, err), hw;
        if (hh < 0 || (hw = shape_attr(did, "width", &aw, err)) < 0)
            return (int)err->code;
        if ((hh && ah <= 0) || (hw && aw <= 0))
            return cuplas_error_set(err, CUPLAS_ERR_INPUT,
                                    "height/width attributes must be positive (got %lld x %lld)",
                                    (long long)ah, (long long)aw);
        height = ah;
        width = aw;
    }
    if (height > 0 && width <= 0) {
        if (n % height)
            return cuplas_error_set(err, CUPLAS_ERR_INPUT,
                                    "N = %lld items is not a multiple of height %lld",
                                    (long long)n, (long long)height);
        width = n / height;
    } else if (width > 0 && height <= 0) {
        if (n % width)
            return cuplas_error_set(err, CUPLAS_ERR_INPUT,
                                    "N = %lld items is not a multiple of width %lld",
                                    (long long)n, (long long)width);
        height = n / width;
    } else if (height <= 0 && width <= 0) {
        int64_t s = (int64_t)llround(sqrt((double)n));
        while (s > 0 && s * s > n)
            s--;
        while ((s + 1) * (s + 1) <= n)
            s++;
        if (s * s != n)
            return cuplas_error_set(err, CUPLAS_ERR_INPUT,
                                    "N = %lld items is not a square; set height and width "
                                    "(config or dataset attributes)", (long long)n);
        height = width = s;
    }
    *H = height;
    *W = width;
    return 0;
}

/*
 * Open the dataset and fill g's shape and type (no data). On success *did is
 * the open dataset and *tid its type; on failure everything opened here is
 * closed again.
 */
/* Called by HDF5 before it follows an external link: note the target, and
 * refuse it (negative) unless allowed. */
static herr_t elink_cb(const char *parent_file, const char *parent_group, const char *child_file,
                       const char *child_object, unsigned *acc_flags, hid_t fapl, void *data)
{
    elink_ctx *x = data;
    (void)parent_file;
    (void)parent_group;
    (void)acc_flags;
    (void)fapl;
    if (!x->seen)
        snprintf(x->target, sizeof x->target, "%s:%s", child_file, child_object);
    x->seen = 1;
    return x->allow ? 0 : -1;
}

/* Refuse data that lives in other files (external raw storage, virtual
 * dataset sources) unless allowed; *foreign is set when it does. */
static int check_storage(hid_t did, unsigned flags, int *foreign, cuplas_error *err)
{
    hid_t dcpl = H5I_INVALID_HID;
    int rc = 0, n;
    char name[256] = "";
    off_t off = 0;
    hsize_t size = 0;
    size_t nv = 0;

    if ((dcpl = H5Dget_create_plist(did)) < 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "cannot get the dataset creation properties");
    if ((n = H5Pget_external_count(dcpl)) > 0) {
        *foreign = 1;
        if (!(flags & CUPLAS_H5_ALLOW_EXTERNAL)) {
            H5Pget_external(dcpl, 0, sizeof name, name, &off, &size);
            name[sizeof name - 1] = '\0';
            CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "data stored in %d external file%s (\"%s\"...): "
                        "refused (inputs[].allow_external: true reads it)", n, n > 1 ? "s" : "",
                        name);
        }
    }
#if H5_VERSION_GE(1, 10, 0)
    if (H5Pget_layout(dcpl) == H5D_VIRTUAL && H5Pget_virtual_count(dcpl, &nv) >= 0) {
        for (size_t i = 0; i < nv; i++) {
            if (H5Pget_virtual_filename(dcpl, i, name, sizeof name) < 0)
                CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "cannot read the virtual dataset's sources");
            name[sizeof name - 1] = '\0';
            if (strcmp(name, ".") == 0)
                continue;
            *foreign = 1;
            if (!(flags & CUPLAS_H5_ALLOW_EXTERNAL))
                CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "virtual dataset with sources in other files "
                            "(\"%s\"...): refused (inputs[].allow_external: true reads it)",
                            name);
        }
    }
#endif
fail:
    if (dcpl >= 0) H5Pclose(dcpl);
    return rc;
}

static int probe_open(hid_t fid, int64_t height, int64_t width, unsigned flags, cuplas_h5grid *g,
                      hid_t *did_out, hid_t *tid_out, int *foreign, cuplas_error *err)
{
    hid_t did = H5I_INVALID_HID, sid = H5I_INVALID_HID, tid = H5I_INVALID_HID;
    hid_t dapl = H5I_INVALID_HID;
    H5O_info_t oi, root;
    hsize_t dims[H5S_MAX_RANK];
    cuplas_dtype ti;
    int rc = 0, rank;
    size_t bytes;
    elink_ctx link = {.allow = (flags & CUPLAS_H5_ALLOW_EXTERNAL) != 0};

    /* a dataset access list is also a link access list: every lookup
       below goes through elink_cb before any external link is followed */
    if ((dapl = H5Pcreate(H5P_DATASET_ACCESS)) < 0 || H5Pset_elink_cb(dapl, elink_cb, &link) < 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "cannot create an access property list");
    if (H5Lexists(fid, g->dataset, dapl) <= 0 ||
        H5Oget_info_by_name2(fid, g->dataset, &oi, H5O_INFO_BASIC, dapl) < 0) {
        if (link.seen && !link.allow)
            CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "external link to %s: refused "
                        "(inputs[].allow_external: true follows it)", link.target);
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "no dataset %s", g->dataset);
    }
    if (oi.type != H5O_TYPE_DATASET)
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "%s is not a dataset", g->dataset);
    /* a chunk cut by a slab boundary is decompressed once, not twice */
    if (H5Pset_chunk_cache(dapl, H5D_CHUNK_CACHE_NSLOTS_DEFAULT, READ_CHUNK_CACHE,
                           H5D_CHUNK_CACHE_W0_DEFAULT) < 0 ||
        (did = H5Dopen2(fid, g->dataset, dapl)) < 0 ||
        (sid = H5Dget_space(did)) < 0 || (tid = H5Dget_type(did)) < 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "cannot open dataset %s", g->dataset);
    /* reached through an (allowed) external link: the data is in another file */
    if (link.seen || H5Oget_info_by_name2(fid, "/", &root, H5O_INFO_BASIC, H5P_DEFAULT) < 0 ||
        root.fileno != oi.fileno)
        *foreign = 1;
    CUPLAS_TRY(check_storage(did, flags, foreign, err));

    if (classify_type(tid, &ti) != 0) {
        H5T_class_t cls = H5Tget_class(tid);
        size_t es = H5Tget_size(tid);
        if (cls == H5T_INTEGER || cls == H5T_FLOAT)
            CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "unsupported %zu-byte %s type%s", es,
                        cls == H5T_INTEGER ? "integer" : "float",
                        es == 1 || es == 2 || es == 4 || es == 8
                            ? (cls == H5T_INTEGER ? " (not a standard bit layout)"
                                                  : " (not IEEE 754)")
                            : "");
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT,
                    "%s data is not numeric (need integers or float16/32/64)",
                    class_name(cls));
    }
    rank = H5Sget_simple_extent_ndims(sid);
    if (rank != 2 && rank != 3)
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT,
                    "rank %d dataset; need (N, C) or (H, W, C)", rank);
    H5Sget_simple_extent_dims(sid, dims, NULL);
    for (int i = 0; i < rank; i++) {
        if (dims[i] > (hsize_t)INT64_MAX)
            CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "dimension %d too large", i);
        g->in_dims[i] = (int64_t)dims[i];
    }
    g->in_rank = rank;
    g->C = g->in_dims[rank - 1];
    int64_t n = rank == 3 ? 0 : g->in_dims[0];
    if (rank == 3 && __builtin_mul_overflow(g->in_dims[0], g->in_dims[1], &n))
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "H x W overflows");
    if (n == 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "empty dataset (0 items)");
    if (g->C == 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "no channels (C = 0)");
    if (g->C > CUPLAS_MAX_CHANNELS)
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "C = %lld channels exceeds the limit of %d",
                    (long long)g->C, CUPLAS_MAX_CHANNELS);
    if (rank == 3) {
        g->H = g->in_dims[0];
        g->W = g->in_dims[1];
    } else {
        CUPLAS_TRY(grid_shape_2d(did, n, height, width, &g->H, &g->W, err));
        int64_t hw;
        if (__builtin_mul_overflow(g->H, g->W, &hw) || hw != n)
            CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "N = %lld items does not fill a %lld x %lld grid",
                        (long long)n, (long long)g->H, (long long)g->W);
    }
    if (__builtin_mul_overflow((size_t)n, (size_t)g->C, &bytes) ||
        __builtin_mul_overflow(bytes, (size_t)ti.size, &bytes))
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "dataset too large for this machine");

    snprintf(g->dtype, sizeof g->dtype, "%s", cuplas_dtype_name(&ti));
    g->elem_size = (size_t)ti.size;
    g->type = ti;
    *did_out = did;
    *tid_out = tid;
    did = tid = H5I_INVALID_HID;
fail:
    if (tid >= 0) H5Tclose(tid);
    if (sid >= 0) H5Sclose(sid);
    if (did >= 0) H5Dclose(did);
    if (dapl >= 0) H5Pclose(dapl);
    return rc;
}

/* Read the whole dataset into g->raw in slabs along the first dimension. */
static int read_raw(hid_t did, hid_t tid, cuplas_h5grid *g, cuplas_h5_buffers *bufs,
                    cuplas_error *err)
{
    hid_t fsp = H5I_INVALID_HID, msp = H5I_INVALID_HID;
    int rc = 0, rank = g->in_rank;
    size_t row_bytes = g->elem_size * (size_t)g->C * (rank == 3 ? (size_t)g->W : 1);
    hsize_t rows = (hsize_t)g->in_dims[0];
    hsize_t slab = READ_SLAB_BYTES / row_bytes ? READ_SLAB_BYTES / row_bytes : 1;
    char cause[CAUSE_LEN];

    if (cuplas_h5grid_alloc_raw(g, bufs, row_bytes * (size_t)rows) != 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "cannot allocate %zu bytes for the input",
                    row_bytes * (size_t)rows);
    if ((fsp = H5Dget_space(did)) < 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "cannot get the dataspace");
    for (hsize_t r0 = 0; r0 < rows; r0 += slab) {
        hsize_t start[3] = {r0, 0, 0};
        hsize_t count[3] = {rows - r0 < slab ? rows - r0 : slab,
                            (hsize_t)g->in_dims[1], (hsize_t)g->in_dims[2]};
        if ((msp = H5Screate_simple(rank, count, NULL)) < 0 ||
            H5Sselect_hyperslab(fsp, H5S_SELECT_SET, start, NULL, count, NULL) < 0 ||
            H5Dread(did, tid, msp, fsp, H5P_DEFAULT,
                    (char *)g->raw + (size_t)r0 * row_bytes) < 0)
            CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "read failed at row %llu (%s)",
                        (unsigned long long)r0, h5_cause(cause));
        H5Sclose(msp);
        msp = H5I_INVALID_HID;
    }
fail:
    if (msp >= 0) H5Sclose(msp);
    if (fsp >= 0) H5Sclose(fsp);
    return rc;
}

/*
 * Decide how begin reads the open dataset: fill f's geometry, filter
 * pipeline and fill value for the hand decoder, or leave f->whole set (and
 * f->whole_why) when HDF5 must decode it itself (not chunked, or a filter
 * other than shuffle and deflate with the parameters HDF5 accepts: szip,
 * fletcher32, nbit, scaleoffset, plugins, a deflate level above 9).
 */
static int plan_fetch(hid_t did, hid_t tid, const cuplas_h5grid *g, cuplas_h5_fetch *f,
                      cuplas_error *err)
{
    hid_t dcpl = H5I_INVALID_HID;
    hsize_t cdims[3] = {1, 1, 1};
    H5D_fill_value_t fill_status = H5D_FILL_VALUE_UNDEFINED;
    int rc = 0, nf, r = g->in_rank;

    f->whole = 1;
    f->whole_why = "not chunked";
#if !H5_VERSION_GE(1, 10, 5)
    f->whole_why = "HDF5 before 1.10.5";
    goto fail;   /* no H5Dread_chunk / H5Dget_chunk_info_by_coord: HDF5 decodes */
#endif
    if ((dcpl = H5Dget_create_plist(did)) < 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "cannot get the dataset creation properties");
    if (H5Pget_layout(dcpl) != H5D_CHUNKED)
        goto fail;
    f->whole_why = "filters";
    if (H5Pget_chunk(dcpl, r, cdims + (3 - r)) != r)
        goto fail;
    /* HDF5 never makes a chunk larger than a fixed dimension, nor one of
       4 GiB: a layout that says so is damaged, and H5Dread would fill
       (memset) such a chunk for minutes (found by fuzzing) */
    {
        hsize_t maxd[3] = {0, 0, 0};
        hid_t sid = H5Dget_space(did);
        size_t cb = g->elem_size;
        int bad = sid < 0 || H5Sget_simple_extent_dims(sid, NULL, maxd) != r;
        if (sid >= 0)
            H5Sclose(sid);
        for (int i = 0; i < r && !bad; i++) {
            hsize_t c = cdims[3 - r + i];
            bad = c == 0 || (maxd[i] != H5S_UNLIMITED && c > maxd[i]) ||
                  __builtin_mul_overflow(cb, (size_t)c, &cb) || cb >= ((size_t)4 << 30);
        }
        if (bad)
            CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "corrupt chunk layout: a chunk of %llu x %llu x "
                        "%llu exceeds the dataset or 4 GiB", (unsigned long long)cdims[0],
                        (unsigned long long)cdims[1], (unsigned long long)cdims[2]);
    }
    if ((nf = H5Pget_nfilters(dcpl)) < 0 || nf > CUPLAS_H5_MAX_FILTERS)
        goto fail;
    for (int k = 0; k < nf; k++) {
        unsigned flags = 0, cd[8], config = 0;
        size_t ncd = sizeof cd / sizeof cd[0];
        char name[64];
        H5Z_filter_t id = H5Pget_filter2(dcpl, (unsigned)k, &flags, &ncd, cd, sizeof name, name,
                                         &config);
        /* shuffle's one parameter is the element size, set by HDF5 at
           creation; deflate's is the level, and HDF5's filter refuses to
           run (read or write) with any other count or a level above 9 */
        if (id == H5Z_FILTER_SHUFFLE && ncd == 1 && cd[0] > 0)
            f->shuffle_size[k] = cd[0];
        else if (id != H5Z_FILTER_DEFLATE || ncd != 1 || cd[0] > 9 ||
                 H5Zfilter_avail(H5Z_FILTER_DEFLATE) <= 0)
            goto fail;
        f->filter[k] = id == H5Z_FILTER_DEFLATE ? CUPLAS_FILTER_DEFLATE : CUPLAS_FILTER_SHUFFLE;
    }
    f->nfilters = nf;
    for (int i = 0; i < 3; i++) {
        f->dims[i] = i < 3 - r ? 1 : (hsize_t)g->in_dims[i - (3 - r)];
        f->chunk[i] = cdims[i];
        if (f->chunk[i] == 0)
            goto fail;
    }
    if (__builtin_mul_overflow((size_t)cdims[0], (size_t)cdims[1], &f->chunk_bytes) ||
        __builtin_mul_overflow(f->chunk_bytes, (size_t)cdims[2], &f->chunk_bytes) ||
        __builtin_mul_overflow(f->chunk_bytes, g->elem_size, &f->chunk_bytes) ||
        g->elem_size > sizeof f->fill)
        goto fail;
    /* never-written chunks read as the fill value (0 unless the file sets one) */
    memset(f->fill, 0, sizeof f->fill);
    if (H5Pfill_value_defined(dcpl, &fill_status) < 0 ||
        (fill_status != H5D_FILL_VALUE_UNDEFINED &&
         H5Pget_fill_value(dcpl, tid, f->fill) < 0))
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "cannot read the dataset's fill value");
    f->fill_zero = 1;
    for (size_t i = 0; i < g->elem_size; i++)
        if (f->fill[i])
            f->fill_zero = 0;
    f->whole = 0;
    f->whole_why = NULL;
fail:
    if (dcpl >= 0) H5Pclose(dcpl);
    return rc;
}

static int cmp_at(const void *a, const void *b)
{
    const cuplas_h5_stored *x = *(const cuplas_h5_stored *const *)a;
    const cuplas_h5_stored *y = *(const cuplas_h5_stored *const *)b;
    return x->at < y->at ? -1 : x->at > y->at;
}

/*
 * The stored chunks, as located, against the file and each other (see the
 * rule at the top): NULL when the hand decoder may read them, else why
 * not. Chunks that lie outside the file are an error (rc), as in HDF5.
 */
static const char *check_stored(const cuplas_h5grid *g, const cuplas_h5_fetch *f,
                                hsize_t userblock, size_t cap, size_t stored, hsize_t records,
                                int *rc, cuplas_error *err)
{
    const cuplas_h5_stored **by_at = NULL;
    const char *why = NULL;
    struct stat st;
    size_t n = 0;
    char at[80];

    *rc = 0;
    if (records != (hsize_t)stored)
        return "the chunk index holds records outside the grid or twice";
    if (stat(g->file, &st) != 0)
        return "cannot stat the file";
    if (!(by_at = malloc((stored ? stored : 1) * sizeof *by_at)))
        return "out of memory checking the chunks";
    for (size_t i = 0; i < f->nchunks; i++) {
        const cuplas_h5_stored *c = &f->c[i];
        uint64_t end;
        if (c->size == 0)
            continue;
        if (c->at < (off_t)userblock || __builtin_add_overflow((uint64_t)c->at, c->size, &end) ||
            end > (uint64_t)st.st_size) {
            *rc = cuplas_error_set(err, CUPLAS_ERR_INPUT, "read failed at row %llu: chunk %s lies "
                                   "outside the file (bytes %llu..%llu of %llu)",
                                   (unsigned long long)c->offset[g->in_rank == 3 ? 0 : 1],
                                   cuplas_h5_chunk_where(g, c->offset, at),
                                   (unsigned long long)c->at, (unsigned long long)c->at + c->size,
                                   (unsigned long long)st.st_size);
            goto done;
        }
        if (c->mask >> f->nfilters) {
            why = "a chunk's filter mask names filters the dataset does not have";
            goto done;
        }
        /* unfiltered chunks: HDF5 reads the chunk's bytes whatever the
           index says; filtered ones inflate from at most zlib's bound */
        if (c->mask == (1u << f->nfilters) - 1 ? c->size != f->chunk_bytes : c->size > cap) {
            why = "a chunk's stored size does not fit the chunk";
            goto done;
        }
        by_at[n++] = c;
    }
    qsort(by_at, n, sizeof *by_at, cmp_at);
    for (size_t i = 1; i < n; i++)
        if (by_at[i - 1]->at + (off_t)by_at[i - 1]->size > by_at[i]->at) {
            why = "two chunks overlap in the file";
            break;
        }
done:
    free(by_at);
    return why;
}

/*
 * Under the lock: where every chunk is stored (file offset, size, filter
 * mask). The bytes themselves are read later with pread, outside the HDF5
 * lock: HDF5 moving tens of MB per grid through its one lock was what kept
 * several GPUs from scaling. When the chunks cannot be trusted (the rule
 * at the top), f->whole is set instead and nothing is kept.
 */
static int fetch_chunks(hid_t fid, hid_t did, const cuplas_h5grid *g, cuplas_h5_fetch *f,
                        cuplas_error *err)
{
    hsize_t grid[3], doff[3], userblock = 0, records = 0;
    hid_t fcpl = H5I_INVALID_HID, sid = H5I_INVALID_HID;
    size_t total = 0, stored = 0, cap = f->chunk_bytes;
    int rc = 0, r = g->in_rank;
    const char *why = NULL;
    char cause[CAUSE_LEN], at[80];

    /* chunk addresses are relative to the end of the user block */
    if ((fcpl = H5Fget_create_plist(fid)) < 0 || H5Pget_userblock(fcpl, &userblock) < 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "cannot read the file's layout (%s)", h5_cause(cause));
    for (int i = 0; i < 3; i++)
        grid[i] = (f->dims[i] + f->chunk[i] - 1) / f->chunk[i];
    if (grid[0] * grid[1] > READ_MAX_LOCATED_CHUNKS ||
        grid[0] * grid[1] * grid[2] > READ_MAX_LOCATED_CHUNKS) {
        f->whole = 1;
        f->whole_why = "too many chunks to locate one by one";
        goto fail;
    }
    f->nchunks = (size_t)(grid[0] * grid[1] * grid[2]);
    for (int k = 0; k < f->nfilters; k++)
        if (f->filter[k] == CUPLAS_FILTER_DEFLATE)   /* worst-case zlib expansion */
            cap = (size_t)compressBound((uLong)cap) + 64;
    if (!(f->c = calloc(f->nchunks ? f->nchunks : 1, sizeof *f->c)) || !(f->path = strdup(g->file)))
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory for %zu chunk records", f->nchunks);
    for (size_t i = 0; i < f->nchunks; i++) {
        cuplas_h5_stored *c = &f->c[i];
        hsize_t q = (hsize_t)i, size = 0, looked = 0;
        haddr_t addr = HADDR_UNDEF;
        unsigned mask = 0;
        herr_t found;
        for (int d = 2; d >= 0; d--) {
            c->offset[d] = (q % grid[d]) * f->chunk[d];
            q /= grid[d];
        }
        memcpy(doff, c->offset + (3 - r), (size_t)r * sizeof *doff);
        /* size 0 for a chunk never written (H5Dget_chunk_storage_size fails
         * on those in 1.10.8 once any chunk exists) */
        if (H5Dget_chunk_info_by_coord(did, doff, &mask, &addr, &size) < 0)
            CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "read failed at row %llu: cannot locate chunk %s (%s)",
                        (unsigned long long)doff[0], cuplas_h5_chunk_where(g, c->offset, at),
                        h5_cause(cause));
        if (addr == HADDR_UNDEF)
            size = 0;
        /* the lookup H5Dread does must find the same (by_coord iterates) */
        H5E_BEGIN_TRY {
            found = H5Dget_chunk_storage_size(did, doff, &looked);
        } H5E_END_TRY;
        if (found < 0)
            looked = 0;
        /* HDF5 stores an unfiltered chunk whole: another size is damage,
           and H5Dread would read past its buffer on it (found by fuzzing) */
        if (f->nfilters == 0 && size != 0 && size != f->chunk_bytes)
            CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "read failed at row %llu: chunk %s is corrupt "
                        "(its index says %llu bytes; an unfiltered chunk has %zu)",
                        (unsigned long long)doff[0], cuplas_h5_chunk_where(g, c->offset, at),
                        (unsigned long long)size, f->chunk_bytes);
        if (looked != size && !why)
            why = "the chunk index's lookup and iteration disagree";
        if (size > (hsize_t)SIZE_MAX - total) {
            why = why ? why : "a chunk's stored size does not fit the chunk";
            size = 0;
        }
        c->pos = total;
        c->size = (size_t)size;
        c->mask = mask;
        c->at = addr == HADDR_UNDEF || addr > (haddr_t)INT64_MAX - userblock
                    ? 0 : (off_t)(addr + userblock);
        total += (size_t)size;
        stored += size > 0;
    }
    if (!why) {
        if ((sid = H5Dget_space(did)) < 0 || H5Dget_num_chunks(did, sid, &records) < 0)
            CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "cannot count the stored chunks (%s)",
                        h5_cause(cause));
        why = check_stored(g, f, userblock, cap, stored, records, &rc, err);
        if (rc)
            goto fail;
    }
    if (why) {   /* H5Dread decides, as it would without cuplas */
        free(f->c);
        f->c = NULL;
        f->nchunks = 0;
        f->whole = 1;
        f->whole_why = why;
        goto fail;
    }
    if (!(f->bytes = cuplas_h5_buffers_lend(f->bufs, CUPLAS_H5_STORED, total)))
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "cannot allocate %zu bytes for the stored chunks",
                    total);
fail:
    if (sid >= 0) H5Sclose(sid);
    if (fcpl >= 0) H5Pclose(fcpl);
    return rc;
}

/*
 * Before H5Dread decodes a chunked dataset whose only filter is
 * fletcher32: HDF5 1.10 copies a whole chunk out of whatever the filter
 * returned, so a stored chunk shorter than the chunk plus its 4-byte
 * checksum makes it read past its own buffer (found by fuzzing). Every
 * stored chunk must be exactly that long (or the chunk, where the mask
 * skipped the filter). Other pipelines are left to HDF5.
 */
static int check_fletcher_sizes(hid_t did, const cuplas_h5grid *g, cuplas_error *err)
{
    hid_t dcpl = H5I_INVALID_HID;
    hsize_t cd[3] = {1, 1, 1}, grid[3], doff[3], size;
    unsigned flags, cv[4], config, mask;
    size_t ncd = 4, chunk = g->elem_size;
    haddr_t addr;
    int rc = 0, r = g->in_rank;
    char at[80];

    if ((dcpl = H5Dget_create_plist(did)) < 0 || H5Pget_layout(dcpl) != H5D_CHUNKED ||
        H5Pget_nfilters(dcpl) != 1 ||
        H5Pget_filter2(dcpl, 0, &flags, &ncd, cv, 0, NULL, &config) != H5Z_FILTER_FLETCHER32 ||
        H5Pget_chunk(dcpl, r, cd + (3 - r)) != r)
        goto fail;
    for (int i = 0; i < 3; i++) {
        hsize_t d = i < 3 - r ? 1 : (hsize_t)g->in_dims[i - (3 - r)];
        if (cd[i] == 0)
            goto fail;
        grid[i] = (d + cd[i] - 1) / cd[i];
        chunk *= (size_t)cd[i];
    }
    if (grid[0] * grid[1] * grid[2] > READ_MAX_LOCATED_CHUNKS)
        goto fail;
    for (hsize_t i = 0; i < grid[0] * grid[1] * grid[2]; i++) {
        uint64_t off[3];
        hsize_t q = i;
        for (int d = 2; d >= 0; d--) {
            off[d] = (q % grid[d]) * cd[d];
            q /= grid[d];
        }
        memcpy(doff, off + (3 - r), (size_t)r * sizeof *doff);
        size = 0;
        addr = HADDR_UNDEF;
        mask = 0;
        if (H5Dget_chunk_info_by_coord(did, doff, &mask, &addr, &size) < 0 || addr == HADDR_UNDEF)
            continue;   /* H5Dread says what is wrong with it */
        if (size != (mask & 1 ? chunk : chunk + 4))
            CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "read failed at row %llu: chunk %s is corrupt "
                        "(stores %llu bytes; with its fletcher32 checksum it has %zu)",
                        (unsigned long long)doff[0], cuplas_h5_chunk_where(g, off, at),
                        (unsigned long long)size, mask & 1 ? chunk : chunk + 4);
    }
fail:
    if (dcpl >= 0) H5Pclose(dcpl);
    return rc;
}

/*
 * On doubt (fetch_chunks), before H5Dread decodes a shuffle/deflate (or
 * unfiltered) dataset: every chunk that HDF5's own lookup finds, read raw through it
 * (H5Dread_chunk), must decode to exactly the chunk's bytes. HDF5 1.10
 * copies a whole chunk out of whatever its filters returned, so a short
 * one makes it read past its buffer (found by fuzzing). Chunks over
 * 64 MiB are not checked (HDF5 decides alone).
 */
static int check_by_lookup(hid_t did, const cuplas_h5grid *g, const cuplas_h5_fetch *f,
                           cuplas_error *err)
{
    hsize_t grid[3], doff[3], size;
    unsigned char *buf = NULL;
    size_t cap = 0, n = 1;
    int rc = 0, r = g->in_rank, c;
    char at[80], msg[128];

    if (f->chunk_bytes > ((size_t)64 << 20))
        return 0;
    for (int i = 0; i < 3; i++)
        n *= (size_t)(grid[i] = (f->dims[i] + f->chunk[i] - 1) / f->chunk[i]);
    if (n > READ_MAX_LOCATED_CHUNKS)
        return 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t off[3];
        uint32_t mask = 0;
        hsize_t q = (hsize_t)i;
        herr_t found;
        for (int d = 2; d >= 0; d--) {
            off[d] = (q % grid[d]) * f->chunk[d];
            q /= grid[d];
        }
        memcpy(doff, off + (3 - r), (size_t)r * sizeof *doff);
        size = 0;
        H5E_BEGIN_TRY {
            found = H5Dget_chunk_storage_size(did, doff, &size);
        } H5E_END_TRY;
        if (found < 0 || size == 0)
            continue;   /* not stored: the fill value */
        if (size > cap) {
            unsigned char *p = size <= (hsize_t)SIZE_MAX ? realloc(buf, (size_t)size) : NULL;
            if (!p)
                CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory checking chunk %s",
                            cuplas_h5_chunk_where(g, off, at));
            buf = p;
            cap = (size_t)size;
        }
        if (H5Dread_chunk(did, H5P_DEFAULT, doff, &mask, buf) < 0)
            continue;   /* H5Dread reports it */
        if ((c = cuplas_h5_chunk_check(f, mask, buf, (size_t)size, msg)) == -2)
            CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory checking chunk %s",
                        cuplas_h5_chunk_where(g, off, at));
        if (c)
            CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "read failed at row %llu: chunk %s is corrupt (%s)",
                        (unsigned long long)doff[0], cuplas_h5_chunk_where(g, off, at), msg);
    }
fail:
    free(buf);
    return rc;
}

/* probe (fetch NULL) or read_begin: open and validate, then fetch the data. */
static int open_grid(const char *file, const char *dataset, int64_t height, int64_t width,
                     unsigned flags, cuplas_h5_fetch **fetch, cuplas_h5_buffers *bufs,
                     cuplas_h5grid *g, cuplas_error *err)
{
    hid_t fid = H5I_INVALID_HID, did = H5I_INVALID_HID, tid = H5I_INVALID_HID;
    cuplas_h5_fetch *f = NULL;
    int rc = 0, foreign = 0;

    memset(g, 0, sizeof *g);
    if (fetch)
        *fetch = NULL;
    g->file = strdup(file);
    g->dataset = dataset_path(dataset);
    if (!g->file || !g->dataset)
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
    CUPLAS_TRY(open_input(file, &fid, err));
    CUPLAS_TRY(probe_open(fid, height, width, flags, g, &did, &tid, &foreign, err));
    if (fetch) {
        if (!(f = calloc(1, sizeof *f)))
            CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
        f->bufs = bufs;
        CUPLAS_TRY(plan_fetch(did, tid, g, f, err));
        if (foreign && !f->whole) {   /* its chunks are not in `file` */
            f->whole = 1;
            f->whole_why = "stored in another file";
        }
        if (!f->whole) {
            CUPLAS_TRY(fetch_chunks(fid, did, g, f, err));
            if (f->whole)   /* doubt: HDF5 decodes, once it safely can */
                CUPLAS_TRY(check_by_lookup(did, g, f, err));
        }
        if (f->whole && !foreign)
            CUPLAS_TRY(check_fletcher_sizes(did, g, err));
        if (f->whole)   /* by design, or on doubt (fetch_chunks) */
            CUPLAS_TRY(read_raw(did, tid, g, bufs, err));
        *fetch = f;
        f = NULL;
    }
fail:
    cuplas_h5_fetch_free(f);
    if (tid >= 0) H5Tclose(tid);
    if (did >= 0) H5Dclose(did);
    if (fid >= 0) H5Fclose(fid);
    if (rc) {
        cuplas_error_where(err, "%s:%s", file, g->dataset ? g->dataset : dataset);
        cuplas_h5grid_free(g);
    }
    return rc;
}

int cuplas_h5_read_begin(const char *file, const char *dataset, int64_t height, int64_t width,
                         unsigned flags, cuplas_h5grid *g, cuplas_h5_fetch **fetch,
                         cuplas_h5_buffers *bufs, cuplas_error *err)
{
    return open_grid(file, dataset, height, width, flags, fetch, bufs, g, err);
}

int cuplas_h5_read_grid(const char *file, const char *dataset, int64_t height, int64_t width,
                        cuplas_h5grid *g, cuplas_error *err)
{
    cuplas_h5_fetch *f = NULL;
    int rc = cuplas_h5_read_begin(file, dataset, height, width, 0, g, &f, NULL, err);

    if (rc == 0 && (rc = cuplas_h5_read_finish(g, f, NULL, err)) != 0)
        cuplas_h5grid_free(g);
    return rc;
}

int cuplas_h5_probe_grid(const char *file, const char *dataset, int64_t height, int64_t width,
                         unsigned flags, cuplas_h5grid *g, cuplas_error *err)
{
    return open_grid(file, dataset, height, width, flags, NULL, NULL, g, err);
}

/* Read a string attribute (fixed or variable length) into buf; 0 on success. */
static int str_attr(hid_t obj, const char *name, char *buf, size_t size)
{
    hid_t aid = H5I_INVALID_HID, tid = H5I_INVALID_HID, mt = H5I_INVALID_HID;
    int rc = -1;

    if (H5Aexists(obj, name) <= 0 || (aid = H5Aopen(obj, name, H5P_DEFAULT)) < 0 ||
        (tid = H5Aget_type(aid)) < 0 || H5Tget_class(tid) != H5T_STRING)
        goto fail;
    if (H5Tis_variable_str(tid) > 0) {
        char *s = NULL;
        /* same cset as the file: HDF5 has no ASCII <-> UTF-8 conversion path
           (a fresh process fails the read; the writer's process does not) */
        if ((mt = H5Tcopy(H5T_C_S1)) < 0 || H5Tset_size(mt, H5T_VARIABLE) < 0 ||
            H5Tset_cset(mt, H5Tget_cset(tid)) < 0 || H5Aread(aid, mt, &s) < 0)
            goto fail;
        if (s) {
            snprintf(buf, size, "%s", s);
            H5free_memory(s);
            rc = 0;
        }
    } else {
        size_t n = H5Tget_size(tid);
        char *s = calloc(n + 1, 1);
        if (!s || (mt = H5Tcopy(H5T_C_S1)) < 0 || H5Tset_size(mt, n + 1) < 0 ||
            H5Tset_cset(mt, H5Tget_cset(tid)) < 0 || H5Aread(aid, mt, s) < 0) {
            free(s);
            goto fail;
        }
        snprintf(buf, size, "%s", s);
        free(s);
        rc = 0;
    }
fail:
    if (mt >= 0) H5Tclose(mt);
    if (tid >= 0) H5Tclose(tid);
    if (aid >= 0) H5Aclose(aid);
    return rc;
}

int cuplas_h5_output_complete(const char *out_path, const char *dataset, const char *identity)
{
    hid_t fid = H5I_INVALID_HID, gid = H5I_INVALID_HID;
    char *path = NULL, *have = NULL;
    int64_t complete = 0;
    int ok = 0;

    if (access(out_path, R_OK) != 0 || !(path = dataset_path(dataset)))
        return 0;
    H5E_BEGIN_TRY {
        if ((fid = H5Fopen(out_path, H5F_ACC_RDONLY, H5P_DEFAULT)) < 0 ||
            H5Lexists(fid, path, H5P_DEFAULT) <= 0 ||
            (gid = H5Gopen2(fid, path, H5P_DEFAULT)) < 0)
            goto fail;
        if (!int_attr(gid, "complete", &complete) || complete != 1)
            goto fail;
        if (identity) {
            size_t n = strlen(identity) + 2;   /* +1 so a longer stored value differs */
            if (!(have = malloc(n)) || str_attr(gid, "identity", have, n) != 0 ||
                strcmp(have, identity) != 0)
                goto fail;
        }
        ok = 1;
    fail:
        if (gid >= 0) H5Gclose(gid);
        if (fid >= 0) H5Fclose(fid);
    } H5E_END_TRY;
    free(have);
    free(path);
    return ok;
}

/* Read a scalar floating-point attribute; 1 found, 0 absent/unusable. */
static int double_attr(hid_t obj, const char *name, double *v)
{
    hid_t aid = H5I_INVALID_HID, tid = H5I_INVALID_HID;
    int found = 0;

    if (H5Aexists(obj, name) <= 0 || (aid = H5Aopen(obj, name, H5P_DEFAULT)) < 0)
        goto fail;
    if ((tid = H5Aget_type(aid)) < 0 || H5Tget_class(tid) != H5T_FLOAT)
        goto fail;
    found = H5Aread(aid, H5T_NATIVE_DOUBLE, v) >= 0;
fail:
    if (tid >= 0) H5Tclose(tid);
    if (aid >= 0) H5Aclose(aid);
    return found;
}

int cuplas_h5_output_metrics(const char *out_path, const char *dataset, double *and_before,
                             double *and_after, char *backend, size_t bsize, char *device,
                             size_t dsize)
{
    hid_t fid = H5I_INVALID_HID, gid = H5I_INVALID_HID;
    char *path = NULL;
    int rc = -1;

    if (!(path = dataset_path(dataset)))
        return -1;
    H5E_BEGIN_TRY {
        if ((fid = H5Fopen(out_path, H5F_ACC_RDONLY, H5P_DEFAULT)) < 0 ||
            H5Lexists(fid, path, H5P_DEFAULT) <= 0 ||
            (gid = H5Gopen2(fid, path, H5P_DEFAULT)) < 0)
            goto fail;
        if (!double_attr(gid, "and_before", and_before) ||
            !double_attr(gid, "and_after", and_after))
            goto fail;
        if (str_attr(gid, "backend", backend, bsize) != 0)
            backend[0] = '\0';
        if (str_attr(gid, "device", device, dsize) != 0)
            device[0] = '\0';
        rc = 0;
    fail:
        if (gid >= 0) H5Gclose(gid);
        if (fid >= 0) H5Fclose(fid);
    } H5E_END_TRY;
    free(path);
    return rc;
}

static int add_name(list_ctx *ctx, const char *name)
{
    if (ctx->count == ctx->cap) {
        int cap = ctx->cap ? 2 * ctx->cap : 16;
        char **p = realloc(ctx->names, (size_t)cap * sizeof *p);
        if (!p)
            return -1;
        ctx->names = p;
        ctx->cap = cap;
    }
    if (!(ctx->names[ctx->count] = dataset_path(name)))
        return -1;
    ctx->count++;
    return 0;
}

/* Visitor: keep datasets that read_grid could accept by type and rank. */
static herr_t list_cb(hid_t obj, const char *name, const H5O_info_t *info, void *data)
{
    list_ctx *ctx = data;
    hid_t did = H5I_INVALID_HID, tid = H5I_INVALID_HID, sid = H5I_INVALID_HID;
    cuplas_dtype ti;
    herr_t ret = 0;

    if (info->type != H5O_TYPE_DATASET)
        return 0;
    if ((did = H5Dopen2(obj, name, H5P_DEFAULT)) < 0)
        goto fail;
    if ((tid = H5Dget_type(did)) < 0 || classify_type(tid, &ti) != 0)
        goto fail;
    if ((sid = H5Dget_space(did)) < 0)
        goto fail;
    int rank = H5Sget_simple_extent_ndims(sid);
    if ((rank == 2 || rank == 3) && add_name(ctx, name) != 0) {
        ctx->oom = 1;
        ret = -1;
    }
fail:
    if (sid >= 0) H5Sclose(sid);
    if (tid >= 0) H5Tclose(tid);
    if (did >= 0) H5Dclose(did);
    return ret;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int cuplas_h5_list_datasets(const char *file, char ***names, int *count, cuplas_error *err)
{
    hid_t fid = H5I_INVALID_HID;
    list_ctx ctx = {0};
    char cause[CAUSE_LEN];
    int rc = 0;

    *names = NULL;
    *count = 0;
    CUPLAS_TRY(open_input(file, &fid, err));
    if (H5Ovisit2(fid, H5_INDEX_NAME, H5_ITER_INC, list_cb, &ctx, H5O_INFO_BASIC) < 0) {
        if (ctx.oom)
            CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory listing datasets");
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "cannot list objects (%s)", h5_cause(cause));
    }
    if (ctx.count > 1)
        qsort(ctx.names, (size_t)ctx.count, sizeof *ctx.names, cmp_str);
    *names = ctx.names;
    *count = ctx.count;
    ctx.names = NULL;
fail:
    if (fid >= 0) H5Fclose(fid);
    if (rc) {
        cuplas_h5_free_names(ctx.names, ctx.count);
        cuplas_error_where(err, "%s", file);
    }
    return rc;
}

void cuplas_h5_free_names(char **names, int count)
{
    if (!names)
        return;
    for (int i = 0; i < count; i++)
        free(names[i]);
    free(names);
}
