/*
 * h5_locate.c - where an input's chunks are, and whether cuplas may read
 * them itself (h5_locate.h). HDF5 calls, on the HDF5 thread.
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
 * error (HDF5 fails to read it too). Decoding (codec_read.c) then requires each
 * chunk to inflate to exactly the chunk's bytes: HDF5 would pad or cut
 * one that does not, with undefined bytes, so cuplas refuses it.
 *
 *
 * Found by fuzzing (fuzz/fuzz_h5_input.c): HDF5 1.10.8 copies a whole
 * chunk out of whatever its filters returned, and reads past its buffer
 * when that is short (unfiltered chunks the index calls short, fletcher32
 * and deflate chunks that decode short), and fills chunks larger than the
 * dataset for minutes. Such files are refused before H5Dread sees them.
 */
#include "io/h5_locate.h"
#include "io/h5_lib.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

/* H5Dget_chunk_info_by_coord walks the whole index (HDF5 1.10/1.12): n
 * chunks cost n^2 record visits under the lock (4096: 0.1 s, 16384:
 * 1.7 s). Past this many, H5Dread, which looks chunks up, is faster. */
#define READ_MAX_LOCATED_CHUNKS 4096
#define CAUSE_LEN CUPLAS_H5_CAUSE_LEN
#define h5_cause cuplas_h5_cause

/*
 * Decide how begin reads the open dataset: fill f's geometry, filter
 * pipeline and fill value for the hand decoder, or leave f->whole set (and
 * f->whole_why) when HDF5 must decode it itself (not chunked, or a filter
 * other than shuffle and deflate with the parameters HDF5 accepts: szip,
 * fletcher32, nbit, scaleoffset, plugins, a deflate level above 9).
 */
int cuplas_h5_plan_fetch(hid_t did, hid_t tid, const cuplas_h5grid *g, cuplas_h5_fetch *f,
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
int cuplas_h5_fetch_chunks(hid_t fid, hid_t did, const cuplas_h5grid *g, cuplas_h5_fetch *f,
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
int cuplas_h5_check_fletcher_sizes(hid_t did, const cuplas_h5grid *g, cuplas_error *err)
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
int cuplas_h5_check_by_lookup(hid_t did, const cuplas_h5grid *g, const cuplas_h5_fetch *f,
                              cuplas_error *err)
{
    hsize_t grid[3], doff[3], size;
    unsigned char *buf = NULL;
    size_t cap = 0, n = 1;
    int rc = 0, r = g->in_rank, c;
    char at[80], msg[128];
    struct stat st;

    if (f->chunk_bytes > ((size_t)64 << 20) || stat(g->file, &st) != 0)
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
        /* a damaged index may claim gigabytes: H5Dread would allocate
           them and then fail to read past the end of the file */
        if (size > (hsize_t)st.st_size)
            CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "read failed at row %llu: chunk %s lies outside "
                        "the file (its index claims %llu bytes; the file has %llu)",
                        (unsigned long long)doff[0], cuplas_h5_chunk_where(g, off, at),
                        (unsigned long long)size, (unsigned long long)st.st_size);
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

