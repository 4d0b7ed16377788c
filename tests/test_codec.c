/*
 * test_codec.c - cmocka tests of the hand-made chunk codec against HDF5's own filters, both ways (codec_read.c, codec_write.c).
 *
 * Inputs are written with the plain HDF5 API (iotest.h) into a fresh
 * mkdtemp folder per test, removed afterwards; outputs are read back with
 * the plain HDF5 API as well.
 */
#define _GNU_SOURCE  /* nftw */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#define IOTEST_NAME "test_codec"
#include <zlib.h>

#include "iotest.h"

static void test_chunk_rows(void **state)
{
    (void)state;
    assert_int_equal(cuplas_h5_chunk_rows(1000, 1024, 0), 1000);
    assert_int_equal(cuplas_h5_chunk_rows(5000, 1024, 0), 1024);
    assert_int_equal(cuplas_h5_chunk_rows(10, (size_t)4 << 20, 0), 1);
    assert_int_equal(cuplas_h5_chunk_rows(10, 16, 64), 10);
    assert_int_equal(cuplas_h5_chunk_rows(10, 16, 3), 3);
}

/* Every filter combination x dtype x chunk shape (edge chunks in every
 * dimension, chunks split along channels, rank 2): same bytes as H5Dread. */
static void test_chunk_read_filters(void **state)
{
    enum { H = 13, W = 11, C = 3, N2 = 36, C2 = 3 };
    static const hsize_t chunks3[][3] = {{4, 5, 2}, {13, 11, 3}, {1, 11, 3}, {5, 3, 1}, {2, 1, 1}};
    static const hsize_t chunks2[][2] = {{7, 2}, {36, 3}, {5, 3}};
    const hsize_t dims3[3] = {H, W, C}, dims2[2] = {N2, C2};
    char file[PATH_MAX];
    unsigned char raw[H * W * C * 8];

    fpath(*state, "chunks.h5", file);
    for (size_t t = 0; t < sizeof CHUNK_DTYPES / sizeof CHUNK_DTYPES[0]; t++) {
        hid_t type = CHUNK_DTYPES[t].type();
        fill_values(type, H * W * C, raw);
        for (size_t fc = 0; fc < sizeof FILTER_CASES / sizeof FILTER_CASES[0]; fc++) {
            const filter_case *c = &FILTER_CASES[fc];
            for (size_t k = 0; k < sizeof chunks3 / sizeof chunks3[0]; k++) {
                put_chunked(file, 1, "/g", type, 3, dims3, chunks3[k], c->shuffle, c->deflate,
                            0, NULL, raw);
                expect_same_as_h5dread(file, "/g", 2);
            }
            for (size_t k = 0; k < sizeof chunks2 / sizeof chunks2[0]; k++) {
                put_chunked(file, 1, "/nc", type, 2, dims2, chunks2[k], c->shuffle, c->deflate,
                            0, NULL, raw);
                expect_same_as_h5dread(file, "/nc", 2);
            }
        }
        H5Tclose(type);
    }
}

/* Never-written chunks read as the fill value (default 0, or the file's),
 * and layouts/filters the decoder leaves to HDF5 still read correctly. */
static void test_chunk_read_fill_and_fallback(void **state)
{
    enum { H = 10, W = 9, C = 2 };
    const hsize_t dims[3] = {H, W, C}, chunk[3] = {3, 4, 2};
    const float fill = -7.5f;
    char file[PATH_MAX];
    float v[H * W * C];

    for (int i = 0; i < H * W * C; i++)
        v[i] = (float)i * 0.25f;
    fpath(*state, "fill.h5", file);
    put_chunked(file, 1, "/empty", H5T_IEEE_F32LE, 3, dims, chunk, 1, 5, 0, NULL, NULL);
    put_chunked(file, 0, "/emptyfill", H5T_IEEE_F32LE, 3, dims, chunk, 1, 5, 0, &fill, NULL);
    put_chunked(file, 0, "/partial", H5T_IEEE_F32LE, 3, dims, chunk, 0, 5, 0, &fill, NULL);
    put_chunked(file, 0, "/fletcher", H5T_IEEE_F32LE, 3, dims, chunk, 1, 5, 1, NULL, v);
    put_dataset(file, 0, "/contiguous", H5T_IEEE_F32LE, 3, dims, v, NULL);

    /* write rows 3..5, columns 4..7 only: some chunks stay unallocated */
    hid_t fid = H5Fopen(file, H5F_ACC_RDWR, H5P_DEFAULT);
    hid_t did = H5Dopen2(fid, "/partial", H5P_DEFAULT), fsp = H5Dget_space(did);
    hsize_t start[3] = {3, 4, 0}, count[3] = {3, 4, 2};
    hid_t msp = H5Screate_simple(3, count, NULL);
    H5Sselect_hyperslab(fsp, H5S_SELECT_SET, start, NULL, count, NULL);
    assert_true(H5Dwrite(did, H5T_NATIVE_FLOAT, msp, fsp, H5P_DEFAULT, v) >= 0);
    H5Sclose(msp);
    H5Sclose(fsp);
    H5Dclose(did);
    H5Fclose(fid);

    const char *names[] = {"/empty", "/emptyfill", "/partial", "/fletcher", "/contiguous"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        expect_same_as_h5dread(file, names[i], 2);

    /* one lane's lent memory, reused and grown across grids of both read
       paths (chunks, whole); every grid_free leaves it to the lender */
    const hsize_t big[3] = {2 * H, W, C}, bigchunk[3] = {7, 9, 1};
    float vv[2 * H * W * C];
    for (int i = 0; i < 2 * H * W * C; i++)
        vv[i] = (float)i - 3.0f;
    put_chunked(file, 0, "/big", H5T_IEEE_F32LE, 3, big, bigchunk, 1, 5, 0, NULL, vv);
    cuplas_h5_buffers bufs = {0};
    const char *lent[] = {"/partial", "/big", "/contiguous", "/fletcher", "/big"};
    for (size_t i = 0; i < sizeof lent / sizeof lent[0]; i++)
        expect_read_lent(file, lent[i], 2, &bufs);
    assert_true(bufs.cap[CUPLAS_H5_RAW] >= sizeof vv && bufs.cap[CUPLAS_H5_STORED] > 0);
    cuplas_h5_buffers_free(&bufs);

    cuplas_h5grid g;
    cuplas_error err;
    cuplas_error_clear(&err);
    assert_int_equal(cuplas_h5_read_grid(file, "/emptyfill", 0, 0, &g, &err), 0);
    assert_true(((float *)g.raw)[0] == fill && ((float *)g.raw)[H * W * C - 1] == fill);
    cuplas_h5grid_free(&g);
    cuplas_error_clear(&err);
    assert_int_equal(cuplas_h5_read_grid(file, "/partial", 0, 0, &g, &err), 0);
    assert_true(((float *)g.raw)[(3 * W + 4) * C] == v[0]);
    assert_true(((float *)g.raw)[0] == fill);
    cuplas_h5grid_free(&g);
}

static void test_chunk_filter_mask(void **state)
{
    enum { H = 8, W = 4, C = 1, CH = 4 };
    const hsize_t dims[3] = {H, W, C}, chunk[3] = {CH, W, C};
    char file[PATH_MAX];
    float v[H * W * C];
    unsigned char shuffled[CH * W * C * 4];

    for (int i = 0; i < H * W * C; i++)
        v[i] = (float)i - 2.5f;
    fpath(*state, "mask.h5", file);
    put_chunked(file, 1, "/g", H5T_IEEE_F32LE, 3, dims, chunk, 1, 6, 0, NULL, v);
    /* rewrite chunk 1 as shuffled but not deflated: mask bit 1 (deflate) */
    const unsigned char *src = (const unsigned char *)(v + CH * W * C);
    size_t m = CH * W * C;
    for (size_t i = 0; i < m; i++)
        for (size_t k = 0; k < 4; k++)
            shuffled[k * m + i] = src[i * 4 + k];
    hid_t fid = H5Fopen(file, H5F_ACC_RDWR, H5P_DEFAULT);
    hid_t did = H5Dopen2(fid, "/g", H5P_DEFAULT);
    hsize_t off[3] = {CH, 0, 0};
    assert_true(H5Dwrite_chunk(did, H5P_DEFAULT, 0x2, off, sizeof shuffled, shuffled) >= 0);
    H5Dclose(did);
    H5Fclose(fid);
    expect_same_as_h5dread(file, "/g", 2);

    cuplas_h5grid g;
    cuplas_error err;
    cuplas_error_clear(&err);
    assert_int_equal(cuplas_h5_read_grid(file, "/g", 0, 0, &g, &err), 0);
    assert_memory_equal(g.raw, v, sizeof v);
    cuplas_h5grid_free(&g);
}

/* encode + write_encoded, read back with plain H5Dread: right data, right
 * filters, and the very chunk bytes HDF5's own H5Dwrite stores. */
/* Chunk by chunk, the same offsets and filter masks, and streams that
 * zlib itself (not the encoder under test) inflates to the same bytes.
 * The encoder is libdeflate, HDF5's is zlib: their streams differ in bytes,
 * never in what they inflate to. */
static void expect_same_inflated_chunks(const char *fa, const char *fb, const char *dset)
{
    hid_t a = H5Fopen(fa, H5F_ACC_RDONLY, H5P_DEFAULT), b = H5Fopen(fb, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t da = H5Dopen2(a, dset, H5P_DEFAULT), db = H5Dopen2(b, dset, H5P_DEFAULT);
    hid_t sa = H5Dget_space(da), sb = H5Dget_space(db), pl = H5Dget_create_plist(da);
    hsize_t na = 0, nb = 0, cdims[3] = {1, 1, 1};
    int rank = H5Pget_chunk(pl, 3, cdims);
    hid_t t = H5Dget_type(da);
    uLong whole = (uLong)H5Tget_size(t);
    assert_true(da >= 0 && db >= 0 && rank > 0);
    for (int k = 0; k < rank; k++)
        whole *= (uLong)cdims[k];
    assert_true(H5Dget_num_chunks(da, sa, &na) >= 0 && H5Dget_num_chunks(db, sb, &nb) >= 0);
    assert_true(na == nb && na > 0);
    for (hsize_t i = 0; i < na; i++) {
        hsize_t off[3], size_a = 0, size_b = 0;
        haddr_t addr;
        unsigned mask_a = 9;
        uint32_t rm_a = 9, rm_b = 9;
        assert_true(H5Dget_chunk_info(da, sa, i, off, &mask_a, &addr, &size_a) >= 0);
        assert_true(H5Dget_chunk_storage_size(db, off, &size_b) >= 0);
        unsigned char *ba = malloc(size_a), *bb = malloc(size_b);
        unsigned char *ia = malloc(whole), *ib = malloc(whole);
        uLongf la = whole, lb = whole;
        assert_true(H5Dread_chunk(da, H5P_DEFAULT, off, &rm_a, ba) >= 0);
        assert_true(H5Dread_chunk(db, H5P_DEFAULT, off, &rm_b, bb) >= 0);
        assert_int_equal(rm_a, rm_b);
        assert_int_equal(uncompress(ia, &la, ba, (uLong)size_a), Z_OK);
        assert_int_equal(uncompress(ib, &lb, bb, (uLong)size_b), Z_OK);
        assert_int_equal(la, whole);
        assert_int_equal(lb, whole);
        assert_memory_equal(ia, ib, whole);
        free(ba);
        free(bb);
        free(ia);
        free(ib);
    }
    H5Tclose(t);
    H5Pclose(pl);
    H5Sclose(sa);
    H5Sclose(sb);
    H5Dclose(da);
    H5Dclose(db);
    H5Fclose(a);
    H5Fclose(b);
}

static void test_chunk_write_round_trip(void **state)
{
    enum { H = 13, W = 7, C = 3, N = H * W, CR = 4 };
    const hsize_t dims[3] = {H, W, C};
    char in[PATH_MAX], out[PATH_MAX], ref[PATH_MAX];
    unsigned char raw[N * C * 8], got[N * C * 8], want[N * C * 8];
    int64_t index[N], back[N];
    int32_t index32[N];

    fpath(*state, "in.h5", in);
    fpath(*state, "out.h5", out);
    fpath(*state, "ref.h5", ref);
    for (int i = 0; i < N; i++)
        index32[i] = (int32_t)(index[i] = (i * 31 + 7) % N);
    cuplas_h5_buffers io = {0};
    cuplas_pool *pool = NULL;
    cuplas_error perr;
    assert_int_equal(cuplas_pool_create(3, &pool, &perr), 0);
    for (size_t t = 0; t < sizeof CHUNK_DTYPES / sizeof CHUNK_DTYPES[0]; t++) {
        hid_t type = CHUNK_DTYPES[t].type();
        size_t es = H5Tget_size(type);
        fill_values(type, N * C, raw);
        for (int i = 0; i < N; i++)
            memcpy(want + (size_t)i * C * es, raw + (size_t)index[i] * C * es, C * es);
        put_chunked(in, 1, "/s/g", type, 3, dims, dims, 1, 3, 0, NULL, raw);
        for (size_t fc = 0; fc < sizeof FILTER_CASES / sizeof FILTER_CASES[0]; fc++) {
            const filter_case *c = &FILTER_CASES[fc];
            cuplas_output_opts opts = {.chunk_rows = CR, .deflate = c->deflate,
                                       .shuffle = c->shuffle};
            cuplas_h5grid g;
            cuplas_h5_encoded *enc = NULL;
            cuplas_error err;
            print_message("write %s %s\n", CHUNK_DTYPES[t].name, c->name);
            cuplas_error_clear(&err);
            assert_int_equal(cuplas_h5_read_grid(in, "/s/g", 0, 0, &g, &err), 0);
            /* every other dtype: memory lent by one lane's buffers, reused,
               and the chunks encoded on a pool as a GPU lane does */
            assert_int_equal(cuplas_h5_encode_result(&g, index, &opts, t % 2 ? &io : NULL,
                                                     t % 2 ? pool : NULL, &enc, &err), 0);
            assert_int_equal(cuplas_h5_write_encoded(out, &g, enc, NULL, &err), 0);
            cuplas_h5_encoded_free(enc);
            cuplas_h5grid_free(&g);

            hid_t fid = H5Fopen(out, H5F_ACC_RDONLY, H5P_DEFAULT);
            hid_t gid = H5Gopen2(fid, "/s/g", H5P_DEFAULT);
            hid_t ix = H5Dopen2(gid, "index", H5P_DEFAULT), so = H5Dopen2(gid, "sorted", H5P_DEFAULT);
            assert_true(H5Dread(ix, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, back) >= 0);
            assert_memory_equal(back, index, sizeof index);
            assert_true(H5Dread(so, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, got) >= 0);
            assert_memory_equal(got, want, N * C * es);
            expect_filters(gid, "index", c, CR);
            expect_filters(gid, "sorted", c, CR);
            assert_int_equal(read_int_attr(gid, "complete"), 1);
            H5Dclose(so);
            H5Dclose(ix);
            H5Gclose(gid);
            H5Fclose(fid);

            if (c->deflate) {   /* chunked: what HDF5 would store, once inflated */
                reference_output(ref, "/s/g", type, dims, CR, c, index32, want);
                expect_same_inflated_chunks(out, ref, "/s/g/index");
                expect_same_inflated_chunks(out, ref, "/s/g/sorted");
            }
            /* and the two-phase reader reads HDF5's own chunks back */
            expect_same_as_h5dread(out, "/s/g/sorted", 2);
        }
        H5Tclose(type);
    }
    assert_non_null(io.p[CUPLAS_H5_SORTED]);
    cuplas_h5_buffers_free(&io);
    cuplas_pool_free(pool);
}

/* The stored bytes do not depend on the thread count (encode and decode). */
static void test_chunk_threads(void **state)
{
    enum { H = 64, W = 48, C = 4, N = H * W };
    const hsize_t dims[3] = {H, W, C};
    char in[PATH_MAX], out1[PATH_MAX], out4[PATH_MAX];
    float *v = malloc(N * C * sizeof *v);
    int64_t *index = malloc(N * sizeof *index);
    cuplas_output_opts opts = {.chunk_rows = 5, .deflate = 6, .shuffle = true};
    cuplas_h5grid g;
    cuplas_error err;

    for (int i = 0; i < N * C; i++)
        v[i] = sinf((float)i * 0.01f) * 100.0f;
    for (int i = 0; i < N; i++)
        index[i] = ((int64_t)i * 1237 + 11) % N;
    fpath(*state, "in.h5", in);
    fpath(*state, "out1.h5", out1);
    fpath(*state, "out4.h5", out4);
    put_chunked(in, 1, "/g", H5T_IEEE_F32LE, 3, dims, (const hsize_t[3]){7, 16, 4}, 1, 6, 0,
                NULL, v);
    expect_same_as_h5dread(in, "/g", 1);
    expect_same_as_h5dread(in, "/g", 4);

    cuplas_error_clear(&err);
    assert_int_equal(cuplas_h5_read_grid(in, "/g", 0, 0, &g, &err), 0);
    const char *outs[2] = {out1, out4};
    const int threads[2] = {1, 4};
    for (int k = 0; k < 2; k++) {
        cuplas_h5_encoded *enc = NULL;
        cuplas_set_threads(threads[k]);
        assert_int_equal(cuplas_h5_encode_result(&g, index, &opts, NULL, NULL, &enc, &err), 0);
        cuplas_set_threads(2);
        assert_int_equal(cuplas_h5_write_encoded(outs[k], &g, enc, NULL, &err), 0);
        cuplas_h5_encoded_free(enc);
    }
    expect_same_chunks(out1, out4, "/g/sorted");
    expect_same_chunks(out1, out4, "/g/index");
    cuplas_h5grid_free(&g);
    free(index);
    free(v);
}

/* A float32 result whose low mantissa bytes are noise (zplanes.c stores
 * them): HDF5's own deflate filter reads it back, and the chunk really
 * starts with a stored block of 65535 bytes behind the zlib header. */
static void test_chunk_noise_planes(void **state)
{
    enum { H = 128, W = 128, C = 4, N = H * W };
    const hsize_t dims[3] = {H, W, C};
    char in[PATH_MAX], out[PATH_MAX];
    float *v = malloc(N * C * sizeof *v), *got = malloc(N * C * sizeof *got);
    int64_t *index = malloc(N * sizeof *index);
    cuplas_output_opts opts = {.chunk_rows = H, .deflate = 1, .shuffle = true};
    cuplas_h5grid g;
    cuplas_h5_encoded *enc = NULL;
    cuplas_error err;
    uint64_t s = 7;

    for (int i = 0; i < N * C; i++) {   /* uniform in [1, 2): random mantissas */
        s = s * 6364136223846793005u + 1442695040888963407u;
        v[i] = 1.0f + (float)(s >> 41) / (float)(1 << 23);
    }
    for (int i = 0; i < N; i++)
        index[i] = ((int64_t)i * 1237 + 11) % N;
    fpath(*state, "in.h5", in);
    fpath(*state, "out.h5", out);
    put_chunked(in, 1, "/g", H5T_IEEE_F32LE, 3, dims, dims, 0, 0, 0, NULL, v);
    cuplas_error_clear(&err);
    assert_int_equal(cuplas_h5_read_grid(in, "/g", 0, 0, &g, &err), 0);
    assert_int_equal(cuplas_h5_encode_result(&g, index, &opts, NULL, NULL, &enc, &err), 0);
    assert_int_equal(cuplas_h5_write_encoded(out, &g, enc, NULL, &err), 0);
    cuplas_h5_encoded_free(enc);
    cuplas_h5grid_free(&g);

    hid_t fid = H5Fopen(out, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t so = H5Dopen2(fid, "/g/sorted", H5P_DEFAULT);
    assert_true(H5Dread(so, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, got) >= 0);
    for (int i = 0; i < N; i++)
        assert_memory_equal(got + (size_t)i * C, v + (size_t)index[i] * C, C * sizeof *v);
    const hsize_t origin[3] = {0, 0, 0};
    hsize_t bytes = 0;
    uint32_t mask = 1;
    unsigned char *chunk;
    assert_true(H5Dget_chunk_storage_size(so, origin, &bytes) >= 0);
    assert_non_null(chunk = malloc(bytes));
    assert_true(H5Dread_chunk(so, H5P_DEFAULT, origin, &mask, chunk) >= 0);
    assert_int_equal(mask, 0);
    assert_true(bytes < (hsize_t)N * C * sizeof *v);   /* the exponents still shrink */
    assert_int_equal(chunk[2], 0);                      /* stored, not final */
    assert_int_equal(chunk[3] | chunk[4] << 8, 65535);  /* LEN */
    assert_int_equal(chunk[5] | chunk[6] << 8, 0);      /* NLEN */
    free(chunk);
    H5Dclose(so);
    H5Fclose(fid);
    expect_same_as_h5dread(out, "/g/sorted", 2);
    free(index);
    free(got);
    free(v);
}

/* A written output with bytes overwritten inside a compressed chunk: begin
 * succeeds (it moves stored bytes only), finish reports the chunk cleanly. */
static void test_chunk_corrupt(void **state)
{
    enum { H = 32, W = 32, C = 2, N = H * W };
    const hsize_t dims[3] = {H, W, C};
    char in[PATH_MAX], out[PATH_MAX];
    float v[N * C];
    int64_t index[N];
    cuplas_output_opts opts = {.chunk_rows = 8, .deflate = 6, .shuffle = true};
    cuplas_h5grid g;
    cuplas_h5_fetch *fetch = NULL;
    cuplas_error err;

    for (int i = 0; i < N * C; i++)
        v[i] = (float)(i % 101) * 0.5f;
    for (int i = 0; i < N; i++)
        index[i] = N - 1 - i;
    fpath(*state, "in.h5", in);
    fpath(*state, "out.h5", out);
    put_dataset(in, 1, "/g", H5T_IEEE_F32LE, 3, dims, v, NULL);
    cuplas_error_clear(&err);
    assert_int_equal(cuplas_h5_read_grid(in, "/g", 0, 0, &g, &err), 0);
    assert_int_equal(cuplas_h5_write_result(out, &g, index, &opts, NULL, &err), 0);
    cuplas_h5grid_free(&g);

    /* the middle of the stored chunk holding rows 16..23 */
    hid_t fid = H5Fopen(out, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t did = H5Dopen2(fid, "/g/sorted", H5P_DEFAULT);
    hsize_t off[3] = {16, 0, 0}, size = 0;
    haddr_t addr = 0;
    unsigned mask = 0;
    assert_true(H5Dget_chunk_info_by_coord(did, off, &mask, &addr, &size) >= 0);
    H5Dclose(did);
    H5Fclose(fid);
    assert_true(size > 64);
    FILE *fp = fopen(out, "r+b");
    assert_non_null(fp);
    assert_int_equal(fseek(fp, (long)(addr + size / 2), SEEK_SET), 0);
    for (int i = 0; i < 16; i++)
        fputc(0x5a ^ i, fp);
    fclose(fp);

    cuplas_pool *pool = NULL;
    assert_int_equal(cuplas_pool_create(4, &pool, &err), 0);
    for (int run = 0; run < 3; run++) {   /* 1 and 4 OpenMP threads, then a pool */
        cuplas_error_clear(&err);
        assert_int_equal(cuplas_h5_read_begin(out, "/g/sorted", 0, 0, 0, &g, &fetch, NULL, &err), 0);
        cuplas_set_threads(run == 1 ? 4 : 1);
        int rc = cuplas_h5_read_finish(&g, fetch, run == 2 ? pool : NULL, &err);
        cuplas_set_threads(2);
        expect_error(&err, rc, CUPLAS_ERR_INPUT, "read failed at row 16: chunk (16, 0, 0) is corrupt",
                     out, "/g/sorted");
        assert_null(g.raw);
        cuplas_h5grid_free(&g);
    }
    cuplas_pool_free(pool);
    read_expect_error(out, "/g/sorted", 0, 0, CUPLAS_ERR_INPUT, "chunk (16, 0, 0) is corrupt");
    /* the other chunks are intact */
    hid_t f2 = H5Fopen(out, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t d2 = H5Dopen2(f2, "/g/sorted", H5P_DEFAULT), fs = H5Dget_space(d2);
    hsize_t start[3] = {0, 0, 0}, count[3] = {16, W, C};
    hid_t ms = H5Screate_simple(3, count, NULL);
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
    assert_true(H5Dread(d2, H5T_NATIVE_FLOAT, ms, fs, H5P_DEFAULT, v) >= 0);
    H5Sclose(ms);
    H5Sclose(fs);
    H5Dclose(d2);
    H5Fclose(f2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chunk_rows),
        cmocka_unit_test_setup_teardown(test_chunk_read_filters, setup, teardown),
        cmocka_unit_test_setup_teardown(test_chunk_read_fill_and_fallback, setup, teardown),
        cmocka_unit_test_setup_teardown(test_chunk_filter_mask, setup, teardown),
        cmocka_unit_test_setup_teardown(test_chunk_write_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_chunk_threads, setup, teardown),
        cmocka_unit_test_setup_teardown(test_chunk_noise_planes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_chunk_corrupt, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
