/*
 * h5_gen.c - synthetic input files: random colours, normals, 3DGS-like splats.
 *
 * Design fact: there is no generator state. Each value is derived from a
 * hash of (seed, item, cell, channel, draw), so any slab of any dataset can
 * be produced independently, in parallel, and always with the same bytes.
 * Files are written in row slabs under a temp name and renamed into place.
 */
#include "io/h5_gen.h"

#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/codec.h"
#include "io/publish.h"

#define GEN_SLAB_BYTES ((size_t)32 << 20)
#define GEN_BLOBS 6                     /* position clusters in `gaussians` */
#define BLOB_CELL UINT64_C(0xffffffff00000000) /* counter space for blob params */

/* ------------------------------------------------------------ randomness */

static uint64_t mix64(uint64_t x)
{
    /* splitmix64 finaliser: a bijection with full avalanche */
    x += UINT64_C(0x9e3779b97f4a7c15);
    x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
    return x ^ (x >> 31);
}

/* The counter: chained so that no two (item, cell, channel, draw) collide. */
static uint64_t rng(uint64_t seed, int item, uint64_t cell, int ch, int draw)
{
    uint64_t x = mix64(seed ^ mix64((uint64_t)(uint32_t)item));
    x = mix64(x ^ cell);
    return mix64(x ^ ((uint64_t)(uint32_t)ch << 8 | (uint64_t)(draw & 0xff)));
}

/* Uniform in (0, 1), never 0 (safe for log). */
static double uniform(uint64_t r)
{
    return ((double)(r >> 11) + 0.5) * 0x1.0p-53;
}

/* Box-Muller on two independent draws. */
static double normal(uint64_t seed, int item, uint64_t cell, int ch)
{
    double u1 = uniform(rng(seed, item, cell, ch, 0));
    double u2 = uniform(rng(seed, item, cell, ch, 1));
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

/* ---------------------------------------------------------------- kinds */

static void fill_colors(const cuplas_gen_opts *o, int item, int64_t first, int64_t n,
                        uint8_t *out)
{
    #pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; i++)
        for (int c = 0; c < 3; c++)
            out[i * 3 + c] = (uint8_t)(rng(o->seed, item, (uint64_t)(first + i), c, 0) >> 56);
}

static void fill_normal(const cuplas_gen_opts *o, int item, int64_t first, int64_t n,
                        float *out)
{
    int64_t C = o->C;
    #pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; i++)
        for (int64_t c = 0; c < C; c++)
            out[i * C + c] = (float)normal(o->seed, item, (uint64_t)(first + i), (int)c);
}

/* Blob b's centre (3 values in [-5, 5]) and spread, also pure in the seed. */
static void blob_params(const cuplas_gen_opts *o, int item, int b, double centre[3],
                        double *spread)
{
    for (int k = 0; k < 3; k++)
        centre[k] = 10.0 * uniform(rng(o->seed, item, BLOB_CELL + (uint64_t)b, k, 0)) - 5.0;
    *spread = 0.3 + 1.2 * uniform(rng(o->seed, item, BLOB_CELL + (uint64_t)b, 3, 0));
}

static void fill_gaussians(const cuplas_gen_opts *o, int item, int64_t first, int64_t n,
                           float *out)
{
    double centre[GEN_BLOBS][3], spread[GEN_BLOBS];
    for (int b = 0; b < GEN_BLOBS; b++)
        blob_params(o, item, b, centre[b], &spread[b]);

    #pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; i++) {
        uint64_t cell = (uint64_t)(first + i);
        float *v = out + i * CUPLAS_GEN_GAUSSIAN_CHANNELS;
        int b = (int)(rng(o->seed, item, cell, 100, 0) % GEN_BLOBS);
        double q[4], norm = 0.0;

        for (int k = 0; k < 3; k++) {
            double xyz = centre[b][k] + spread[b] * normal(o->seed, item, cell, k);
            v[k] = (float)xyz;
            /* colour follows position: neighbours in space look alike */
            v[3 + k] = (float)(0.3 * xyz + 0.25 * normal(o->seed, item, cell, 3 + k));
            v[6 + k] = (float)(-4.5 + 0.8 * normal(o->seed, item, cell, 6 + k));
        }
        for (int k = 0; k < 4; k++) {
            q[k] = normal(o->seed, item, cell, 9 + k);
            norm += q[k] * q[k];
        }
        norm = norm > 0.0 ? sqrt(norm) : 1.0;
        for (int k = 0; k < 4; k++)
            v[9 + k] = (float)(q[k] / norm);
        v[13] = (float)(1.0 + 1.5 * normal(o->seed, item, cell, 13));
    }
}

/* ------------------------------------------------------------- writing */

static int write_dataset(hid_t fid, const cuplas_gen_opts *o, int item, const char *name,
                         cuplas_error *err)
{
    hid_t sid = H5I_INVALID_HID, dcpl = H5I_INVALID_HID, did = H5I_INVALID_HID;
    hid_t msp = H5I_INVALID_HID, lcpl = H5I_INVALID_HID;
    int64_t C = cuplas_gen_channels(o), N = o->H * o->W;
    size_t es = cuplas_gen_elem_size(o), row = es * (size_t)C * (size_t)o->W;
    int flat = o->kind == CUPLAS_GEN_GAUSSIANS && o->flat;
    int rank = flat ? 2 : 3;
    hid_t ftype = o->kind == CUPLAS_GEN_COLORS ? H5T_STD_U8LE : H5T_IEEE_F32LE;
    hid_t mtype = o->kind == CUPLAS_GEN_COLORS ? H5T_NATIVE_UINT8 : H5T_NATIVE_FLOAT;
    int64_t crows = cuplas_h5_chunk_rows(o->H, row, o->chunk_rows);
    int64_t slab_rows = crows * (int64_t)(GEN_SLAB_BYTES / (row * (size_t)crows) + 1);
    hsize_t dims[3], chunk[3];
    void *buf = NULL;
    int rc = 0;

    if (flat) {
        dims[0] = (hsize_t)N, dims[1] = (hsize_t)C;
        chunk[0] = (hsize_t)(crows * o->W), chunk[1] = (hsize_t)C;
    } else {
        dims[0] = (hsize_t)o->H, dims[1] = (hsize_t)o->W, dims[2] = (hsize_t)C;
        chunk[0] = (hsize_t)crows, chunk[1] = (hsize_t)o->W, chunk[2] = (hsize_t)C;
    }
    if (slab_rows > o->H)
        slab_rows = o->H;
    /* no object timestamps: the same options give a byte-identical file */
    if ((dcpl = H5Pcreate(H5P_DATASET_CREATE)) < 0 || H5Pset_chunk(dcpl, rank, chunk) < 0 ||
        H5Pset_obj_track_times(dcpl, 0) < 0 ||
        (o->shuffle && H5Pset_shuffle(dcpl) < 0) ||
        (o->deflate > 0 && H5Pset_deflate(dcpl, (unsigned)(o->deflate > 9 ? 9 : o->deflate)) < 0))
        CUPLAS_FAIL(err, CUPLAS_ERR_OUTPUT, "cannot set up chunking and filters");
    if ((lcpl = H5Pcreate(H5P_LINK_CREATE)) < 0 || H5Pset_create_intermediate_group(lcpl, 1) < 0 ||
        (sid = H5Screate_simple(rank, dims, NULL)) < 0 ||
        (did = H5Dcreate2(fid, name, ftype, sid, lcpl, dcpl, H5P_DEFAULT)) < 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_OUTPUT, "cannot create dataset %s", name);
    if (!(buf = malloc(row * (size_t)slab_rows)))
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
    for (int64_t r0 = 0; r0 < o->H; r0 += slab_rows) {
        int64_t nr = o->H - r0 < slab_rows ? o->H - r0 : slab_rows;
        /* a slab is 32 MiB: a stop request waits for at most one */
        if (o->cancel && *o->cancel)
            CUPLAS_FAIL(err, CUPLAS_ERR_INTERRUPTED, "interrupted by a signal: no file written");
        hsize_t start[3] = {(hsize_t)r0, 0, 0}, count[3] = {(hsize_t)nr, dims[1], dims[2]};
        if (flat)
            start[0] = (hsize_t)(r0 * o->W), count[0] = (hsize_t)(nr * o->W);
        cuplas_gen_fill(o, item, r0 * o->W, nr * o->W, buf);
        if ((msp = H5Screate_simple(rank, count, NULL)) < 0 ||
            H5Sselect_hyperslab(sid, H5S_SELECT_SET, start, NULL, count, NULL) < 0 ||
            H5Dwrite(did, mtype, msp, sid, H5P_DEFAULT, buf) < 0)
            CUPLAS_FAIL(err, CUPLAS_ERR_OUTPUT, "cannot write dataset %s", name);
        H5Sclose(msp);
        msp = H5I_INVALID_HID;
    }
    if (flat) {
        hid_t ssid = H5Screate(H5S_SCALAR), aid;
        const int64_t hw[2] = {o->H, o->W};
        const char *names[2] = {"height", "width"};
        for (int k = 0; k < 2 && rc == 0; k++) {
            aid = H5Acreate2(did, names[k], H5T_STD_I64LE, ssid, H5P_DEFAULT, H5P_DEFAULT);
            if (aid < 0 || H5Awrite(aid, H5T_NATIVE_INT64, &hw[k]) < 0)
                rc = cuplas_error_set(err, CUPLAS_ERR_OUTPUT, "cannot write attribute %s",
                                      names[k]);
            if (aid >= 0)
                H5Aclose(aid);
        }
        if (ssid >= 0)
            H5Sclose(ssid);
    }
fail:
    free(buf);
    if (msp >= 0) H5Sclose(msp);
    if (did >= 0) H5Dclose(did);
    if (sid >= 0) H5Sclose(sid);
    if (lcpl >= 0) H5Pclose(lcpl);
    if (dcpl >= 0) H5Pclose(dcpl);
    return rc;
}

static int check_opts(const cuplas_gen_opts *o, cuplas_error *err)
{
    int64_t n;
    if (!o->path || !o->path[0])
        return cuplas_error_set(err, CUPLAS_ERR_USAGE, "gen: no output path");
    if (o->H <= 0 || o->W <= 0 || __builtin_mul_overflow(o->H, o->W, &n))
        return cuplas_error_set(err, CUPLAS_ERR_USAGE, "gen: bad grid size %lld x %lld",
                                (long long)o->H, (long long)o->W);
    if (o->kind == CUPLAS_GEN_NORMAL && (o->C < 1 || o->C > 4096))
        return cuplas_error_set(err, CUPLAS_ERR_USAGE, "gen: C must be 1..4096 (got %lld)",
                                (long long)o->C);
    if (o->count < 1 || o->count > 100000)
        return cuplas_error_set(err, CUPLAS_ERR_USAGE, "gen: count must be 1..100000");
    if (o->deflate < 0 || o->deflate > 9)
        return cuplas_error_set(err, CUPLAS_ERR_USAGE, "gen: deflate must be 0..9");
    return 0;
}

/* ---------------------------------------------------------------- public */

void cuplas_gen_defaults(cuplas_gen_opts *o)
{
    memset(o, 0, sizeof *o);
    o->kind = CUPLAS_GEN_COLORS;
    o->H = o->W = 256;
    o->C = 16;
    o->dataset = "/grid";
    o->count = 1;
    o->flat = true;
    o->deflate = 4;
    o->shuffle = true;
}

int cuplas_gen_kind_parse(const char *name, cuplas_gen_kind *kind)
{
    static const cuplas_gen_kind all[] = {CUPLAS_GEN_COLORS, CUPLAS_GEN_NORMAL,
                                          CUPLAS_GEN_GAUSSIANS};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (!strcmp(name, cuplas_gen_kind_name(all[i]))) {
            *kind = all[i];
            return 0;
        }
    return -1;
}

const char *cuplas_gen_kind_name(cuplas_gen_kind kind)
{
    switch (kind) {
    case CUPLAS_GEN_COLORS: return "colors";
    case CUPLAS_GEN_NORMAL: return "normal";
    case CUPLAS_GEN_GAUSSIANS: return "gaussians";
    }
    return "?";
}

int64_t cuplas_gen_channels(const cuplas_gen_opts *o)
{
    switch (o->kind) {
    case CUPLAS_GEN_COLORS: return 3;
    case CUPLAS_GEN_NORMAL: return o->C;
    case CUPLAS_GEN_GAUSSIANS: return CUPLAS_GEN_GAUSSIAN_CHANNELS;
    }
    return 0;
}

size_t cuplas_gen_elem_size(const cuplas_gen_opts *o)
{
    return o->kind == CUPLAS_GEN_COLORS ? 1 : sizeof(float);
}

void cuplas_gen_fill(const cuplas_gen_opts *o, int item, int64_t first, int64_t ncells,
                     void *buf)
{
    switch (o->kind) {
    case CUPLAS_GEN_COLORS: fill_colors(o, item, first, ncells, buf); break;
    case CUPLAS_GEN_NORMAL: fill_normal(o, item, first, ncells, buf); break;
    case CUPLAS_GEN_GAUSSIANS: fill_gaussians(o, item, first, ncells, buf); break;
    }
}

int cuplas_gen_write(const cuplas_gen_opts *o, cuplas_error *err)
{
    hid_t fapl = H5I_INVALID_HID, fid = H5I_INVALID_HID;
    char *tmp = NULL, *name = NULL;
    size_t name_len = strlen(o->dataset ? o->dataset : "") + 16;
    int rc = 0;

    CUPLAS_TRY(check_opts(o, err));
    if (!(name = malloc(name_len)))
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
    if (!(tmp = cuplas_tmp_create(o->path, err))) {
        rc = err ? (int)err->code : CUPLAS_ERR_OUTPUT;
        goto fail;
    }
    if ((fapl = H5Pcreate(H5P_FILE_ACCESS)) < 0 ||
        H5Pset_fclose_degree(fapl, H5F_CLOSE_SEMI) < 0 ||
        (fid = H5Fcreate(tmp, H5F_ACC_TRUNC, H5P_DEFAULT, fapl)) < 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_OUTPUT, "cannot create %s", tmp);
    for (int item = 0; item < o->count; item++) {
        const char *base = o->dataset && o->dataset[0] ? o->dataset : "/grid";
        if (o->count == 1)
            snprintf(name, name_len, "%s", base);
        else
            snprintf(name, name_len, "%s_%03d", base, item);
        CUPLAS_TRY(write_dataset(fid, o, item, name, err));
    }
    if (H5Fclose(fid) < 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_OUTPUT, "cannot close %s", tmp);
    fid = H5I_INVALID_HID;
    if (o->corrupt) {
        /* cut the finished file so its superblock points past the end */
        FILE *f = fopen(tmp, "rb");
        long size = -1;
        if (f && fseek(f, 0, SEEK_END) == 0)
            size = ftell(f);
        if (f)
            fclose(f);
        if (size < 0 || truncate(tmp, size / 2) != 0)
            CUPLAS_FAIL(err, CUPLAS_ERR_OUTPUT, "cannot truncate %s", tmp);
    }
    CUPLAS_TRY(cuplas_tmp_publish(tmp, o->path, 1, err));
    free(tmp);
    tmp = NULL;
fail:
    if (fid >= 0) H5Fclose(fid);
    if (fapl >= 0) H5Pclose(fapl);
    if (tmp) {
        unlink(tmp);
        free(tmp);
    }
    free(name);
    if (rc)
        cuplas_error_where(err, "%s", o->path ? o->path : "gen");
    return rc;
}
