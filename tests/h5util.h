/*
 * h5util.h - reading back what the suites wrote with HDF5, and damaging a
 * result the way a hand edit (h5py) does, for the readers' refusals.
 * Include after cmocka.h.
 */
#ifndef CUPLAS_TESTS_H5UTIL_H
#define CUPLAS_TESTS_H5UTIL_H

#include <hdf5.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

/* A scalar numeric attribute of obj as a double; fails the test if absent. */
static inline double tu_double_attr(hid_t obj, const char *name)
{
    double v = NAN;
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    assert_true(a >= 0);
    assert_true(H5Aread(a, H5T_NATIVE_DOUBLE, &v) >= 0);
    H5Aclose(a);
    return v;
}

/* One damage to group `group` of result `path`: index cell 0 a copy of
 * cell 1, cell 0 -5, the last cell emptied; input_shape deleted, [-1, 14]
 * or the string "300,14"; channel_names three names, or integers. */
typedef enum {
    TU_DMG_DUP, TU_DMG_NEG5, TU_DMG_HOLE, TU_DMG_NO_SHAPE, TU_DMG_NEG_SHAPE, TU_DMG_STR_SHAPE,
    TU_DMG_3_NAMES, TU_DMG_INT_NAMES
} tu_damage;

static inline void tu_h5_damage(const char *path, const char *group, tu_damage d)
{
    hid_t fid = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    assert_true(fid >= 0);
    hid_t gid = H5Gopen2(fid, group, H5P_DEFAULT);
    assert_true(gid >= 0);
    if (d <= TU_DMG_HOLE) {   /* written back in index's own type */
        hid_t did = H5Dopen2(gid, "index", H5P_DEFAULT), sid = H5Dget_space(did);
        hssize_t n = H5Sget_simple_extent_npoints(sid);
        int64_t *ix = malloc((size_t)n * sizeof *ix);
        assert_true(did >= 0 && n > 1 && ix);
        assert_true(H5Dread(did, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, ix) >= 0);
        if (d == TU_DMG_DUP)
            ix[0] = ix[1];
        else if (d == TU_DMG_NEG5)
            ix[0] = -5;
        else
            ix[n - 1] = -1;
        assert_true(H5Dwrite(did, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, ix) >= 0);
        free(ix);
        H5Sclose(sid);
        H5Dclose(did);
    } else {
        const char *name = d <= TU_DMG_STR_SHAPE ? "input_shape" : "channel_names";
        const int64_t shape[2] = {-1, 14}, ints[3] = {0, 1, 2};
        const char *names[3] = {"x", "y", "z"};
        hsize_t n = d == TU_DMG_NEG_SHAPE ? 2 : 3;
        hid_t str = H5Tcopy(H5T_C_S1), sid;
        assert_true(H5Adelete(gid, name) >= 0);
        H5Tset_size(str, d == TU_DMG_STR_SHAPE ? 7 : H5T_VARIABLE);
        sid = d == TU_DMG_STR_SHAPE ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, NULL);
        hid_t type = d == TU_DMG_STR_SHAPE || d == TU_DMG_3_NAMES ? str : H5T_STD_I64LE;
        const void *v = d == TU_DMG_NEG_SHAPE ? (const void *)shape
                        : d == TU_DMG_STR_SHAPE ? (const void *)"300,14"
                        : d == TU_DMG_3_NAMES ? (const void *)names : (const void *)ints;
        if (d != TU_DMG_NO_SHAPE) {
            hid_t aid = H5Acreate2(gid, name, type, sid, H5P_DEFAULT, H5P_DEFAULT);
            assert_true(aid >= 0);
            assert_true(H5Awrite(aid, type == str ? str : H5T_NATIVE_INT64, v) >= 0);
            H5Aclose(aid);
        }
        H5Sclose(sid);
        H5Tclose(str);
    }
    H5Gclose(gid);
    H5Fclose(fid);
}

#endif
