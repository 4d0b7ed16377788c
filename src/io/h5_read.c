/*
 * h5_read.c - open, check and locate an input grid; probe its shape
 * (h5_read.h). HDF5 calls. A file's grids listed: h5_list.c; an output
 * read back: h5_result.c.
 *
 * Design fact: the read keeps the data in its file type (raw bytes) and
 * describes that type with a plain cuplas_dtype, so that nothing the read
 * returns holds an HDF5 identifier: conversion to double (dtype.c) and
 * freeing the grid need no HDF5 call and no second visit to the HDF5
 * thread. Chunked data with only shuffle/deflate is located here (chunk
 * addresses) and fetched and decoded by codec_read.c; anything else (szip,
 * fletcher32, contiguous, ...) is read whole through HDF5. Every hid_t
 * starts at H5I_INVALID_HID and is closed in the function's single
 * `fail:`.
 *
 * The rule for the hand decoder (which chunks it may read itself, and
 * what is checked before H5Dread decodes on doubt) is in h5_locate.c.
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
#include "core/channel_names.h"
#include "io/h5_lib.h"
#include "io/h5_locate.h"

#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define READ_SLAB_BYTES ((size_t)64 << 20)   /* bounded H5Dread calls      */
#define READ_CHUNK_CACHE ((size_t)32 << 20)  /* slabs rarely align to chunks */
#define CAUSE_LEN CUPLAS_H5_CAUSE_LEN
#define h5_cause cuplas_h5_cause

typedef struct elink_ctx {
    int allow, seen;
    char target[512];   /* the first external link met: "file:/object" */
} elink_ctx;

/* -------------------------------------------------------------- datatypes */

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
    if (cls == H5T_INTEGER && H5Tget_sign(tid) == H5T_SGN_NONE) {
        /* read as int64, HDF5 would clip 2^64 - 1 to 2^63 - 1 and the
           error would quote a number the file does not hold */
        uint64_t u = 0;
        if (H5Aread(aid, H5T_NATIVE_UINT64, &u) < 0)
            CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "cannot read the %s attribute", name);
        if (u > (uint64_t)INT64_MAX)
            CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "the %s attribute is %llu, larger than any grid",
                        name, (unsigned long long)u);
        *v = (int64_t)u;
    } else if (cls == H5T_INTEGER) {
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
        if (s * s != n) {
            int rc = cuplas_error_set(err, CUPLAS_ERR_INPUT,
                                      "N = %lld items is not a square; set height and width "
                                      "(config or dataset attributes)", (long long)n);
            if (err && err->code == CUPLAS_ERR_INPUT)
                err->reason = CUPLAS_REASON_NOT_SQUARE;   /* fit_plan.c fits these */
            return rc;
        }
        height = width = s;
    }
    *H = height;
    *W = width;
    return 0;
}

/* s = "x, y,z" (the columns attribute as one string) -> g->names, one
 * name per channel, spaces around the commas dropped. */
static int split_columns(const char *s, cuplas_h5grid *g, cuplas_error *err)
{
    char **v = NULL;
    int64_t k = 1;
    int rc = 0;

    for (const char *p = s; *p; p++)
        k += *p == ',';
    if (k != g->C)
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "the columns attribute is one string of %lld "
                    "comma-separated name%s for C = %lld channels", (long long)k,
                    k == 1 ? "" : "s", (long long)g->C);
    if (!(v = calloc((size_t)k, sizeof *v)))
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
    for (int64_t i = 0; i < k; i++) {
        const char *end = strchr(s, ',');
        end = end ? end : s + strlen(s);
        const char *a = s, *b = end;
        while (a < b && (*a == ' ' || *a == '\t'))
            a++;
        while (b > a && (b[-1] == ' ' || b[-1] == '\t'))
            b--;
        if (!(v[i] = strndup(a, (size_t)(b - a))))
            CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
        s = *end ? end + 1 : end;
    }
    g->names = v;
    v = NULL;
fail:
    for (int64_t i = 0; v && i < k; i++)
        free(v[i]);
    free(v);
    return rc;
}

/* g->names from the dataset's `columns` attribute (one string per
 * channel, or one string "x,y,z" naming them all), when it has one. The
 * names must be distinct and not empty, as a PLY's properties must: a
 * name a selector picks has to mean one column. */
static int read_columns(hid_t did, cuplas_h5grid *g, cuplas_error *err)
{
    char **v = NULL;
    int n = 0, rc = 0;

    CUPLAS_TRY(cuplas_h5_str_attr(did, "columns", CUPLAS_MAX_CHANNELS, &v, &n, err));
    if (!v)
        return 0;
    if (n == 1 && g->C > 1) {
        CUPLAS_TRY(split_columns(v[0], g, err));
    } else if (n != g->C) {
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "the columns attribute has %d name%s for C = %lld "
                    "channels", n, n == 1 ? "" : "s", (long long)g->C);
    } else {
        g->names = v;
        v = NULL;
    }
    /* C <= CUPLAS_MAX_CHANNELS: the quadratic search stays small */
    for (int c = 0; c < (int)g->C; c++) {
        int first = cuplas_channel_index((const char *const *)g->names, c, g->names[c]);
        if (!g->names[c][0])
            CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "the columns attribute has an empty name '' for "
                        "channel %d", c);
        if (first >= 0)
            CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "the columns attribute repeats the name '%s' "
                        "(channels %d and %d)", g->names[c], first, c);
    }
fail:
    if (rc)
        cuplas_h5grid_free_names(g);
    for (int i = 0; v && i < n; i++)
        free(v[i]);
    free(v);
    return rc;
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

/*
 * The first filter of dcpl's pipeline that this HDF5 cannot run (no
 * plugin registers it): 1, with "filter ID (NAME)" in what; 0 when all
 * run. With `mandatory`, optional filters are passed over: HDF5 skips an
 * optional filter it lacked at write time, and such chunks read without
 * it, so only the read can tell. The name comes from the file: kept to
 * one printable line.
 */
static int missing_filter(hid_t dcpl, int mandatory, char *what, size_t len)
{
    int nf = H5Pget_nfilters(dcpl);

    for (int k = 0; k < nf; k++) {
        unsigned flags = 0, config = 0;
        size_t ncd = 0;
        char name[64] = "";
        H5Z_filter_t id = H5Pget_filter2(dcpl, (unsigned)k, &flags, &ncd, NULL, sizeof name,
                                         name, &config);
        if (id < 0 || (mandatory && (flags & H5Z_FLAG_OPTIONAL)) || H5Zfilter_avail(id) > 0)
            continue;
        name[sizeof name - 1] = '\0';
        for (char *p = name; *p; p++)
            if ((unsigned char)*p < 0x20 || *p == 0x7f)
                *p = '?';
        snprintf(what, len, name[0] ? "filter %d (%s)" : "filter %d", (int)id, name);
        return 1;
    }
    return 0;
}

#define NO_FILTER_FMT "the data needs HDF5 %s, which this HDF5 does not have " \
                      "(no plugin for it in HDF5_PLUGIN_PATH or the default plugin folder)"

/* Refuse data that lives in other files (external raw storage, virtual
 * dataset sources) unless allowed; *foreign is set when it does. Refuse
 * data that a mandatory filter this HDF5 lacks would keep from being
 * read (before: `check` passed it and the read failed with HDF5's "can't
 * open directory: .../plugins"). */
static int check_storage(hid_t did, unsigned flags, int *foreign, cuplas_error *err)
{
    hid_t dcpl = H5I_INVALID_HID;
    int rc = 0, n;
    char name[256] = "";
    off_t off = 0;
    hsize_t size = 0;
    size_t nv = 0;
    char filter[96];

    if ((dcpl = H5Dget_create_plist(did)) < 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "cannot get the dataset creation properties");
    if (missing_filter(dcpl, 1, filter, sizeof filter))
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, NO_FILTER_FMT, filter);
    if ((n = H5Pget_external_count(dcpl)) > 0) {
        *foreign = 1;
        if (!(flags & CUPLAS_H5_ALLOW_EXTERNAL)) {
            H5Pget_external(dcpl, 0, sizeof name, name, &off, &size);
            name[sizeof name - 1] = '\0';
            CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "data stored in %d external file%s (\"%s\"...): "
                        "refused (inputs[].allow_external: true, or --allow-external, reads "
                        "it)", n, n > 1 ? "s" : "", name);
        }
    }
    /* compact data lives in the object header, whose size a damaged file
       can set below what the shape needs: HDF5 1.10.8 then copies from
       NULL (found by fuzz_h5_input) */
    if (H5Pget_layout(dcpl) == H5D_COMPACT) {
        hid_t sid = H5Dget_space(did), tid = H5Dget_type(did);
        const hssize_t npts = sid >= 0 ? H5Sget_simple_extent_npoints(sid) : -1;
        const size_t es = tid >= 0 ? H5Tget_size(tid) : 0;
        const hsize_t have = H5Dget_storage_size(did);
        if (sid >= 0) H5Sclose(sid);
        if (tid >= 0) H5Tclose(tid);
        if (npts < 0 || es == 0 || (hsize_t)npts > have / es)
            CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "its compact data holds %llu bytes, fewer than "
                        "its shape needs (%lld values of %zu bytes): the file is damaged",
                        (unsigned long long)have, (long long)npts, es);
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
                            "(\"%s\"...): refused (inputs[].allow_external: true, or "
                            "--allow-external, reads it)", name);
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
                        "(inputs[].allow_external: true, or --allow-external, follows it)",
                        link.target);
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

    if (cuplas_h5_type_classify(tid, &ti) != 0) {
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

    CUPLAS_TRY(read_columns(did, g, err));
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
    hid_t fsp = H5I_INVALID_HID, msp = H5I_INVALID_HID, dcpl = H5I_INVALID_HID;
    int rc = 0, rank = g->in_rank;
    char filter[96];
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
                    (char *)g->raw + (size_t)r0 * row_bytes) < 0) {
            /* an optional filter that was applied, and is missing now:
               say which, not where HDF5 looked for plugins */
            h5_cause(cause);
            if ((dcpl = H5Dget_create_plist(did)) >= 0 &&
                missing_filter(dcpl, 0, filter, sizeof filter))
                CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "read failed at row %llu: " NO_FILTER_FMT,
                            (unsigned long long)r0, filter);
            CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "read failed at row %llu (%s)",
                        (unsigned long long)r0, cause);
        }
        H5Sclose(msp);
        msp = H5I_INVALID_HID;
    }
fail:
    if (dcpl >= 0) H5Pclose(dcpl);
    if (msp >= 0) H5Sclose(msp);
    if (fsp >= 0) H5Sclose(fsp);
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
    g->dataset = cuplas_h5_dataset_path(dataset);
    if (!g->file || !g->dataset)
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
    CUPLAS_TRY(cuplas_h5_open_input(file, &fid, err));
    CUPLAS_TRY(probe_open(fid, height, width, flags, g, &did, &tid, &foreign, err));
    if (fetch) {
        if (!(f = calloc(1, sizeof *f)))
            CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
        f->bufs = bufs;
        CUPLAS_TRY(cuplas_h5_plan_fetch(did, tid, g, f, err));
        if (foreign && !f->whole) {   /* its chunks are not in `file` */
            f->whole = 1;
            f->whole_why = "stored in another file";
        }
        if (!f->whole) {
            CUPLAS_TRY(cuplas_h5_fetch_chunks(fid, did, g, f, err));
            if (f->whole)   /* doubt: HDF5 decodes, once it safely can */
                CUPLAS_TRY(cuplas_h5_check_by_lookup(did, g, f, err));
        }
        if (f->whole && !foreign)
            CUPLAS_TRY(cuplas_h5_check_fletcher_sizes(did, g, err));
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
