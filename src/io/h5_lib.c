/*
 * h5_lib.c - process-wide HDF5 settings and shared helpers (h5_lib.h):
 * types both ways, the read-only open of an input.
 * HDF5 calls.
 *
 * An input must be a regular file: HDF5's open of a FIFO blocks until a
 * writer comes (a glob that matches one would stall the whole run, deaf
 * to SIGTERM), and a socket or device is no HDF5 file cuplas could read
 * twice. Both opens here (the input's and the pin) check it first.
 *
 * String attributes are read into a memory type of the file's character
 * set: HDF5 1.10 converts no string between ASCII and UTF-8, and h5py
 * writes str as UTF-8 while C writers default to ASCII. (A process that
 * has converted an ASCII vlen string reuses that path for UTF-8 ones, so
 * only some reads failed: a fresh process's.)
 *
 * A file another program has open for writing carries HDF5's exclusive
 * flock, and H5Fopen fails with "unable to lock file": that is told
 * apart (after the failure, so a good open costs nothing) from a damaged
 * file, which the message said before. A dangling symbolic link (a glob
 * lists one as a file) is named as such, with its target, not as a file
 * that is not there (util/fsutil.h: cuplas_input_file_check).
 */
#include "io/h5_lib.h"

#include <errno.h>
#include <fcntl.h>
#include <hdf5.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/fsutil.h"

void cuplas_h5_quiet(void)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

void cuplas_h5_tune(void)
{
    /* Every H5Fcreate/H5Fopen allocates a ~520 KiB metadata-cache table and
       every close frees it. The default per-list limit of HDF5's free lists
       (64 KiB) hands it back to malloc each time, and a fresh 520 KiB block
       costs ~130 page faults: half of the HDF5 work of writing a small
       result. 1 MiB per list keeps one; the other limits stay the defaults. */
    H5set_free_list_limits(4 << 20, 1 << 20, 4 << 20, 256 << 10, 16 << 20, 1 << 20);
#ifdef __GLIBC__
    /* glibc maps blocks from 128 KiB up (the threshold adapts, up to
       32 MiB) and trims freed heap tops: chunk and grid buffers, freed job
       after job, come back as fresh pages. Fixed thresholds keep freed
       memory for the next job (unmaps also interrupt every core the
       process runs on). Larger grids are lent per lane (cuplas_h5_buffers). */
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 64 << 20);
#endif
}

int64_t cuplas_h5_pin(const char *file)
{
    struct stat st;
    if (stat(file, &st) != 0 || cuplas_mode_not_regular(st.st_mode))
        return -1;   /* the read's own open says why */
    hid_t fid = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT);
    return fid < 0 ? -1 : (int64_t)fid;
}

void cuplas_h5_unpin(int64_t id)
{
    if (id >= 0)
        H5Fclose((hid_t)id);
}

static herr_t first_cause_cb(unsigned n, const H5E_error2_t *e, void *data)
{
    char *buf = data;
    if (n == 0 && e->desc)
        snprintf(buf, CUPLAS_H5_CAUSE_LEN, "%s", e->desc);
    return 0;
}

/* The innermost HDF5 error description (the most specific one), or "". */
const char *cuplas_h5_cause(char buf[CUPLAS_H5_CAUSE_LEN])
{
    buf[0] = '\0';
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, first_cause_cb, buf);
    for (char *p = buf; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    return buf;
}

void cuplas_h5_version(unsigned *major, unsigned *minor, unsigned *release)
{
    *major = *minor = *release = 0;
    H5get_libversion(major, minor, release);
}

/* IEEE half precision as HDF5 describes it: h5py's and numpy's float16,
 * built the way they build it. */
static hid_t half_type(int big_endian)
{
    hid_t t = H5Tcopy(big_endian ? H5T_IEEE_F32BE : H5T_IEEE_F32LE);
    if (t >= 0 && (H5Tset_fields(t, 15, 10, 5, 0, 10) < 0 || H5Tset_size(t, 2) < 0 ||
                   H5Tset_ebias(t, 15) < 0)) {
        H5Tclose(t);
        t = H5I_INVALID_HID;
    }
    return t;
}

int64_t cuplas_h5_type_create(const cuplas_dtype *t)
{
    int be = t->big_endian != 0;
    hid_t base = H5I_INVALID_HID;

    if (t->cls == CUPLAS_DTYPE_INT) {
        const hid_t u[4][2] = {{H5T_STD_U8LE, H5T_STD_U8BE}, {H5T_STD_U16LE, H5T_STD_U16BE},
                               {H5T_STD_U32LE, H5T_STD_U32BE}, {H5T_STD_U64LE, H5T_STD_U64BE}};
        const hid_t s[4][2] = {{H5T_STD_I8LE, H5T_STD_I8BE}, {H5T_STD_I16LE, H5T_STD_I16BE},
                               {H5T_STD_I32LE, H5T_STD_I32BE}, {H5T_STD_I64LE, H5T_STD_I64BE}};
        int lg = t->size == 1 ? 0 : t->size == 2 ? 1 : t->size == 4 ? 2 : t->size == 8 ? 3 : -1;
        if (lg < 0)
            return -1;
        base = t->is_signed ? s[lg][be] : u[lg][be];
    } else if (t->cls == CUPLAS_DTYPE_FLOAT) {
        if (t->size == 2)
            return (int64_t)half_type(be);
        if (t->size == 4)
            base = be ? H5T_IEEE_F32BE : H5T_IEEE_F32LE;
        else if (t->size == 8)
            base = be ? H5T_IEEE_F64BE : H5T_IEEE_F64LE;
        else
            return -1;
    } else {
        return -1;
    }
    hid_t c = H5Tcopy(base);
    return c < 0 ? -1 : (int64_t)c;
}

int cuplas_h5_type_classify(int64_t tid_, cuplas_dtype *t)
{
    hid_t tid = (hid_t)tid_;
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

/* Does another open file hold an exclusive flock on `file` (HDF5's lock
 * of a file open for writing)? */
static int locked_for_writing(const char *file)
{
    int fd = open(file, O_RDONLY | O_NONBLOCK | O_CLOEXEC), locked = 0;
    if (fd < 0)
        return 0;
    if (flock(fd, LOCK_SH | LOCK_NB) != 0)
        locked = errno == EWOULDBLOCK;
    else
        flock(fd, LOCK_UN);
    close(fd);
    return locked;
}

int cuplas_h5_open_input(const char *file, int64_t *fid, cuplas_error *err)
{
    char cause[CUPLAS_H5_CAUSE_LEN];
    int rc;

    if ((rc = cuplas_input_file_check(file, err)) != 0)
        return rc;
    if (access(file, R_OK) != 0)
        return cuplas_error_set(err, CUPLAS_ERR_INPUT, "cannot open: %s", strerror(errno));
    *fid = (int64_t)H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (*fid >= 0)
        return 0;
    cuplas_h5_cause(cause);
    if (locked_for_writing(file))
        return cuplas_error_set(err, CUPLAS_ERR_INPUT, "cannot open: another program has it open "
                                "for writing (HDF5's file lock); run again once it is closed "
                                "(HDF5_USE_FILE_LOCKING=FALSE reads it regardless)");
    rc = cuplas_error_set(err, CUPLAS_ERR_INPUT, "not an HDF5 file or corrupt (%s)", cause);
    err->reason = CUPLAS_REASON_NOT_HDF5;
    return rc;
}

char *cuplas_h5_dataset_path(const char *dataset)
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

int cuplas_h5_str_attr(int64_t obj, const char *name, int max, char ***out, int *n,
                       cuplas_error *err)
{
    hid_t aid = H5I_INVALID_HID, tid = H5I_INVALID_HID, sid = H5I_INVALID_HID,
          mt = H5I_INVALID_HID;
    hssize_t count = 0;
    char **v = NULL, **vl = NULL, *buf = NULL, cause[CUPLAS_H5_CAUSE_LEN];
    size_t len = 0;   /* fixed length: bytes per string in the file */
    int rc = 0, vlen;

    *out = NULL;
    *n = 0;
    if (H5Aexists((hid_t)obj, name) <= 0)
        return 0;
    if ((aid = H5Aopen((hid_t)obj, name, H5P_DEFAULT)) < 0 || (tid = H5Aget_type(aid)) < 0 ||
        (sid = H5Aget_space(aid)) < 0 || H5Tget_class(tid) != H5T_STRING ||
        (count = H5Sget_simple_extent_npoints(sid)) < 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "the %s attribute is not a list of strings", name);
    if (count > max)
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "the %s attribute holds %lld strings, more than %d",
                    name, (long long)count, max);
    vlen = H5Tis_variable_str(tid) > 0;
    len = vlen ? 0 : H5Tget_size(tid);
    /* count + 1: an array even for none, so the attribute reads as present */
    if (!(v = calloc((size_t)count + 1, sizeof *v)) ||
        (vlen ? !(vl = calloc((size_t)count + 1, sizeof *vl))
              : !(buf = calloc((size_t)count + 1, len + 1))))
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
    /* fixed length: one byte more, so that each string arrives terminated */
    if ((mt = H5Tcopy(H5T_C_S1)) < 0 || H5Tset_size(mt, vlen ? H5T_VARIABLE : len + 1) < 0 ||
        H5Tset_cset(mt, H5Tget_cset(tid)) < 0 ||
        (count && H5Aread(aid, mt, vlen ? (void *)vl : (void *)buf) < 0))
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "cannot read the %s attribute (%s)", name,
                    cuplas_h5_cause(cause));
    for (hssize_t i = 0; i < count; i++)
        if (!(v[i] = strdup(vlen ? (vl[i] ? vl[i] : "") : buf + (size_t)i * (len + 1))))
            CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
    *out = v;
    *n = (int)count;
    v = NULL;
fail:
    /* HDF5 allocated each vlen string: H5free_memory frees them alike in
       1.10 and 1.12+ (where H5Treclaim replaces the deprecated
       H5Dvlen_reclaim), and on any path out */
    for (hssize_t i = 0; vl && i < count; i++)
        H5free_memory(vl[i]);
    for (hssize_t i = 0; v && i < count; i++)
        free(v[i]);
    free(vl);
    free(buf);
    free(v);
    if (mt >= 0) H5Tclose(mt);
    if (sid >= 0) H5Sclose(sid);
    if (tid >= 0) H5Tclose(tid);
    if (aid >= 0) H5Aclose(aid);
    return rc;
}
