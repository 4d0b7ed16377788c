/*
 * h5util.h - reading back what the suites wrote with HDF5. Include after
 * cmocka.h.
 */
#ifndef CUPLAS_TESTS_H5UTIL_H
#define CUPLAS_TESTS_H5UTIL_H

#include <hdf5.h>
#include <math.h>

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

#endif
