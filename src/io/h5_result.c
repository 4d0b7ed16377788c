#define _GNU_SOURCE /* asprintf, strndup */
/*
 * h5_result.c - a finished result read back (h5_result.h).
 *
 * Design fact: `sorted` is read by the input reader (h5_read.c), so every
 * type and layout an output can have (float16, big-endian, chunked or
 * contiguous) reads the same way an input does; only `index`, `dropped`'s
 * length and the attributes are read here, and `sorted`'s shape from its
 * dataspace, so that export-ply checks a result without its values.
 */
#include "io/h5_result.h"

#include <hdf5.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/fit.h"
#include "io/h5_lib.h"
#include "io/h5_list.h"
#include "io/h5_read.h"

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcmp(s + n - m, suffix);
}

/* The group of the file's only index + sorted pair (malloc'd), or an error. */
static int find_group(const char *file, char **group, cuplas_error *err)
{
    char **names = NULL;
    int n = 0, found = 0, rc = 0;

    CUPLAS_TRY(cuplas_h5_list_datasets(file, &names, &n, err));
    for (int i = 0; i < n; i++) {
        if (!ends_with(names[i], "/sorted"))
            continue;
        size_t len = strlen(names[i]) - strlen("sorted");
        int has_index = 0;
        for (int k = 0; k < n && !has_index; k++)
            has_index = strlen(names[k]) == len + 5 && !strncmp(names[k], names[i], len) &&
                        !strcmp(names[k] + len, "index");
        if (!has_index)
            continue;
        if (found++) {
            free(*group);
            *group = NULL;
            CUPLAS_FAIL(err, CUPLAS_ERR_USAGE, "holds several results: name one as FILE:/GROUP");
        }
        /* "/grid/sorted" -> "/grid"; "/sorted" -> "/" */
        if (!(*group = strndup(names[i], len > 1 ? len - 1 : 1)))
            CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
    }
    if (!found)
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "not a cuplas result (no group with index and "
                                           "sorted datasets)");
fail:
    cuplas_h5_free_names(names, n);
    return rc;
}

static void free_strv(char **v, int n)
{
    if (!v)
        return;
    for (int i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

/* Split one string of names at commas and white space. */
static char **split_names(const char *s, int *n)
{
    char **v = NULL;
    int cap = 0;
    *n = 0;
    while (*s) {
        size_t skip = strspn(s, ", \t\r\n"), len;
        s += skip;
        if (!*s)
            break;
        len = strcspn(s, ", \t\r\n");
        if (*n == cap) {
            char **p = realloc(v, (size_t)(cap = cap ? 2 * cap : 16) * sizeof *p);
            if (!p)
                goto oom;
            v = p;
        }
        if (!(v[*n] = strndup(s, len)))
            goto oom;
        (*n)++;
        s += len;
    }
    return v;
oom:
    free_strv(v, *n);
    *n = -1;
    return NULL;
}

/* The channel_names attribute of obj: *names (count *n), or NULL when
 * absent. 0; 1 when it is there but not strings HDF5 reads (integers, an
 * empty space) or names nothing (""); -1 out of memory. */
static int read_names(hid_t obj, char ***names, int *n)
{
    cuplas_error e;
    char **v = NULL;
    int count = 0;

    *names = NULL;
    *n = 0;
    if (cuplas_h5_str_attr(obj, "channel_names", CUPLAS_MAX_CHANNELS, &v, &count, &e) != 0)
        return e.code == CUPLAS_ERR_NOMEM ? -1 : 1;   /* there, but not strings */
    if (!v)
        return 0;                                     /* absent */
    if (count == 1) {   /* one string: names separated by commas or blanks */
        int k;
        char **w = split_names(v[0], &k);
        free_strv(v, 1);
        if (k < 0)
            return -1;
        v = w;
        count = k;
    }
    if (count < 1) {   /* "" or blanks: there, but naming nothing */
        free_strv(v, count);
        return 1;
    }
    *names = v;
    *n = count;
    return 0;
}

/* input_shape of gid as rows (every dimension but the last): 1 found, 0
 * absent, -1 there but not 2 or 3 positive integers (a string, [-1, 14]). */
static int input_rows(hid_t gid, int64_t *rows)
{
    hid_t aid = H5I_INVALID_HID, tid = H5I_INVALID_HID, sid = H5I_INVALID_HID;
    int64_t dims[3];
    hssize_t n = 0;
    int found = -1;

    *rows = 0;
    if (H5Aexists(gid, "input_shape") <= 0)
        return 0;
    if ((aid = H5Aopen(gid, "input_shape", H5P_DEFAULT)) < 0 ||
        (tid = H5Aget_type(aid)) < 0 || H5Tget_class(tid) != H5T_INTEGER ||
        (sid = H5Aget_space(aid)) < 0 || (n = H5Sget_simple_extent_npoints(sid)) < 2 ||
        n > 3 || H5Aread(aid, H5T_NATIVE_INT64, dims) < 0)
        goto fail;
    if (dims[n - 1] < 1)
        goto fail;
    *rows = 1;
    for (hssize_t k = 0; k + 1 < n; k++) {
        if (dims[k] < 1 || dims[k] > ((int64_t)1 << 40) / *rows)   /* the reader's bound */
            goto fail;
        *rows *= dims[k];
    }
    found = 1;
fail:
    if (found < 0)
        *rows = 0;
    if (sid >= 0) H5Sclose(sid);
    if (tid >= 0) H5Tclose(tid);
    if (aid >= 0) H5Aclose(aid);
    return found;
}

/* The channel names of group gid (or, without them there, of its sorted
 * dataset sd) into r, for C channels. */
static int result_names(hid_t gid, hid_t sd, int64_t C, cuplas_h5_result *r, cuplas_error *err)
{
    int rc = 0, got = read_names(gid, &r->names, &r->nnames);

    if (got == 0 && !r->names)
        got = read_names(sd, &r->names, &r->nnames);
    if (got < 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
    if (got > 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "channel_names is not strings that name the %lld "
                    "channels of sorted", (long long)C);
    if (r->names && r->nnames != C)
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "channel_names has %d names for the %lld channels of "
                    "sorted", r->nnames, (long long)C);
fail:
    return rc;
}

/* index (H, W) of group gid, sorted's shape, the attributes and dropped's
 * length into r; the file stays open here. */
static int read_index_names(hid_t fid, const char *group, cuplas_h5_result *r,
                            cuplas_error *err)
{
    hid_t gid = H5I_INVALID_HID, did = H5I_INVALID_HID, sid = H5I_INVALID_HID,
          tid = H5I_INVALID_HID, sd = H5I_INVALID_HID, ssid = H5I_INVALID_HID;
    hsize_t d[2], sdims[3];
    char cause[CUPLAS_H5_CAUSE_LEN];
    int rc = 0;

    if (H5Lexists(fid, group, H5P_DEFAULT) <= 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "no such group");
    if ((gid = H5Gopen2(fid, group, H5P_DEFAULT)) < 0) {
        /* the user named an input dataset, not the result group of it */
        hid_t ds = H5Dopen2(fid, group, H5P_DEFAULT);
        if (ds >= 0) {
            H5Dclose(ds);
            CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "a dataset, not a cuplas result: eval and "
                        "preview read what sort and run write (a group with index and sorted)");
        }
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "no such group");
    }
    if (H5Lexists(gid, "index", H5P_DEFAULT) <= 0 || H5Lexists(gid, "sorted", H5P_DEFAULT) <= 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "not a cuplas result (no index and sorted datasets)");
    if ((did = H5Dopen2(gid, "index", H5P_DEFAULT)) < 0 || (sid = H5Dget_space(did)) < 0 ||
        (tid = H5Dget_type(did)) < 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "cannot open index (%s)", cuplas_h5_cause(cause));
    if (H5Sget_simple_extent_ndims(sid) != 2 || H5Tget_class(tid) != H5T_INTEGER)
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "index is not a 2-D integer dataset");
    H5Sget_simple_extent_dims(sid, d, NULL);
    if (d[0] < 1 || d[1] < 1 || d[0] * d[1] > ((hsize_t)1 << 40))
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "index has a bad shape");
    /* sorted's shape from its dataspace: export-ply reads no value of it */
    if ((sd = H5Dopen2(gid, "sorted", H5P_DEFAULT)) < 0 || (ssid = H5Dget_space(sd)) < 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "cannot open sorted (%s)", cuplas_h5_cause(cause));
    if (H5Sget_simple_extent_ndims(ssid) != 3 || H5Sget_simple_extent_dims(ssid, sdims, NULL) < 0 ||
        sdims[0] != d[0] || sdims[1] != d[1])
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "sorted is not (H, W, C) with index's (H, W) = "
                    "(%lld, %lld)", (long long)d[0], (long long)d[1]);
    r->cells = (int64_t)(d[0] * d[1]);
    if (!(r->index = malloc((size_t)r->cells * sizeof *r->index)))
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory for the index");
    if (H5Dread(did, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, r->index) < 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "cannot read index (%s)", cuplas_h5_cause(cause));
    if (input_rows(gid, &r->rows) < 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "input_shape is not 2 or 3 positive integers: not a "
                    "readable result");
    CUPLAS_TRY(result_names(gid, sd, (int64_t)sdims[2], r, err));
    r->dropped = -1;
    if (H5Lexists(gid, "dropped", H5P_DEFAULT) > 0) {
        hid_t dd = H5Dopen2(gid, "dropped", H5P_DEFAULT), ds = dd >= 0 ? H5Dget_space(dd) : -1;
        r->dropped = ds >= 0 ? (int64_t)H5Sget_simple_extent_npoints(ds) : -1;
        if (ds >= 0) H5Sclose(ds);
        if (dd >= 0) H5Dclose(dd);
        if (r->dropped < 0)
            CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "cannot open dropped (%s)",
                        cuplas_h5_cause(cause));
    }
    /* A crop keeps some of the input's rows, so the rows an index holds
       need not be 0..n-1 (eval renumbers them); but none can lie past the
       input the result records, or be in two cells */
    CUPLAS_TRY(cuplas_fit_check_index(r->index, r->cells, r->rows, &r->placed, err));
fail:
    if (ssid >= 0) H5Sclose(ssid);
    if (sd >= 0) H5Dclose(sd);
    if (tid >= 0) H5Tclose(tid);
    if (sid >= 0) H5Sclose(sid);
    if (did >= 0) H5Dclose(did);
    if (gid >= 0) H5Gclose(gid);
    return rc;
}

/* cuplas_h5_result_read, `sorted`'s values only when with_sorted. */
static int read_result(const char *file, const char *group, int with_sorted,
                       cuplas_h5_result *r, cuplas_error *err)
{
    hid_t fid = H5I_INVALID_HID;
    char *path = NULL;
    int rc = 0;

    memset(r, 0, sizeof *r);
    CUPLAS_TRY(cuplas_h5_open_input(file, &fid, err));
    if (group && *group) {
        if (!(r->group = strdup(group)))
            CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
    } else {
        CUPLAS_TRY(find_group(file, &r->group, err));
    }
    CUPLAS_TRY(read_index_names(fid, r->group, r, err));
    H5Fclose(fid);
    fid = H5I_INVALID_HID;
    if (!with_sorted)
        goto fail;
    if (asprintf(&path, "%s/sorted", strcmp(r->group, "/") ? r->group : "") < 0) {
        path = NULL;
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
    }
    /* its errors name file:dataset, which the where below leaves */
    CUPLAS_TRY(cuplas_h5_read_grid(file, path, 0, 0, &r->sorted, err));
fail:
    if (rc && r->group)
        cuplas_error_where(err, "%s:%s", file, r->group);
    else if (rc)
        cuplas_error_where(err, "%s", file);
    free(path);
    if (fid >= 0) H5Fclose(fid);
    if (rc)
        cuplas_h5_result_free(r);
    return rc;
}

int cuplas_h5_result_read(const char *file, const char *group, cuplas_h5_result *r,
                          cuplas_error *err)
{
    return read_result(file, group, 1, r, err);
}

int cuplas_h5_result_read_index(const char *file, const char *group, cuplas_h5_result *r,
                                cuplas_error *err)
{
    return read_result(file, group, 0, r, err);
}

int cuplas_h5_result_check_whole(const char *file, const cuplas_h5_result *r,
                                 cuplas_error *err)
{
    int rc = 0;

    if (r->rows == 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "no input_shape attribute: not a result of cuplas "
                    "sort or run (an export needs the input rows it records)");
    if (r->dropped < 0 && r->placed != r->rows)
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "index is not a permutation: it places %lld of the "
                    "%lld input rows of input_shape, and no dropped dataset says a crop left the "
                    "others out", (long long)r->placed, (long long)r->rows);
    if (r->dropped >= 0 && r->placed + r->dropped != r->rows)
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "index is not a permutation: it places %lld rows and "
                    "dropped lists %lld, not the %lld input rows of input_shape",
                    (long long)r->placed, (long long)r->dropped, (long long)r->rows);
fail:
    if (rc)
        cuplas_error_where(err, "%s:%s", file, r->group);
    return rc;
}

void cuplas_h5_result_free(cuplas_h5_result *r)
{
    free_strv(r->names, r->nnames);
    free(r->group);
    free(r->index);
    cuplas_h5grid_free(&r->sorted);
    memset(r, 0, sizeof *r);
}

/* ------------------------------------------ an output's attributes */

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

/* A string attribute (fixed or variable length), malloc'd; NULL when it is
 * absent, not one string, or cannot be read. */
static char *str_attr_dup(hid_t obj, const char *name)
{
    cuplas_error e;
    char **v = NULL, *out = NULL;
    int n = 0;

    if (cuplas_h5_str_attr(obj, name, 1, &v, &n, &e) == 0 && n == 1)
        out = v[0];
    free(v);
    return out;
}

/* The same into buf (truncated to size); 0 on success. */
static int str_attr(hid_t obj, const char *name, char *buf, size_t size)
{
    char *s = str_attr_dup(obj, name);
    if (!s)
        return -1;
    snprintf(buf, size, "%s", s);
    free(s);
    return 0;
}

/* Open out_path read-only and the group named after `dataset` (NULL or
 * "" or "/": the root); 0, or -1 with whatever was opened left in *fid /
 * *gid for close_output_group. HDF5's error stack stays quiet: a missing
 * or foreign file is an answer here. */
static int open_output_group(const char *out_path, const char *dataset, hid_t *fid, hid_t *gid)
{
    char *path = cuplas_h5_dataset_path(dataset ? dataset : "");
    int rc = -1;
    *fid = *gid = H5I_INVALID_HID;
    if (!path)
        return -1;
    H5E_BEGIN_TRY {
        if ((*fid = H5Fopen(out_path, H5F_ACC_RDONLY, H5P_DEFAULT)) >= 0 &&
            H5Lexists(*fid, path, H5P_DEFAULT) > 0 &&
            (*gid = H5Gopen2(*fid, path, H5P_DEFAULT)) >= 0)
            rc = 0;
    } H5E_END_TRY;
    free(path);
    return rc;
}

static void close_output_group(hid_t fid, hid_t gid)
{
    if (gid >= 0) H5Gclose(gid);
    if (fid >= 0) H5Fclose(fid);
}

int cuplas_h5_output_complete(const char *out_path, const char *dataset, const char *identity)
{
    hid_t fid, gid;
    char *have = NULL;
    int64_t complete = 0;
    int ok = 0;

    if (access(out_path, R_OK) != 0)
        return 0;
    H5E_BEGIN_TRY {
        ok = open_output_group(out_path, dataset, &fid, &gid) == 0 &&
             int_attr(gid, "complete", &complete) && complete == 1 &&
             /* the whole stored value: a longer one differs */
             (!identity ||
              ((have = str_attr_dup(gid, "identity")) && strcmp(have, identity) == 0));
        close_output_group(fid, gid);
    } H5E_END_TRY;
    free(have);
    return ok;
}

int cuplas_h5_output_metrics(const char *out_path, const char *dataset, double *and_before,
                             double *and_after, char *backend, size_t bsize, char *device,
                             size_t dsize)
{
    hid_t fid, gid;
    int rc = -1;

    H5E_BEGIN_TRY {
        if (open_output_group(out_path, dataset, &fid, &gid) == 0 &&
            double_attr(gid, "and_before", and_before) &&
            double_attr(gid, "and_after", and_after)) {
            if (str_attr(gid, "backend", backend, bsize) != 0)
                backend[0] = '\0';
            if (str_attr(gid, "device", device, dsize) != 0)
                device[0] = '\0';
            rc = 0;
        }
        close_output_group(fid, gid);
    } H5E_END_TRY;
    return rc;
}

char *cuplas_h5_output_str(const char *out_path, const char *dataset, const char *name)
{
    hid_t fid, gid;
    char *out = NULL;

    H5E_BEGIN_TRY {
        if (open_output_group(out_path, dataset, &fid, &gid) == 0)
            out = str_attr_dup(gid, name);
        close_output_group(fid, gid);
    } H5E_END_TRY;
    return out;
}
