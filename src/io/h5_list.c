/*
 * h5_list.c - list the grids of a file (h5_list.h). HDF5 calls.
 *
 * Design fact: the listing keeps what the reader could take by type and
 * rank alone, reading no data (h5_read.c may still refuse a listed
 * dataset for its shape or storage). The names are sorted, so the order
 * of a whole-file input's jobs is the names' order whatever the file's
 * link order.
 */
#include "io/h5_list.h"
#include "io/h5_lib.h"

#include <hdf5.h>
#include <stdlib.h>
#include <string.h>

typedef struct list_ctx {
    char **names;
    int count, cap;
    int oom;
} list_ctx;

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
    if (!(ctx->names[ctx->count] = cuplas_h5_dataset_path(name)))
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
    if ((tid = H5Dget_type(did)) < 0 || cuplas_h5_type_classify(tid, &ti) != 0)
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
    char cause[CUPLAS_H5_CAUSE_LEN];
    int rc = 0;

    *names = NULL;
    *count = 0;
    CUPLAS_TRY(cuplas_h5_open_input(file, &fid, err));
    if (H5Ovisit2(fid, H5_INDEX_NAME, H5_ITER_INC, list_cb, &ctx, H5O_INFO_BASIC) < 0) {
        if (ctx.oom)
            CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory listing datasets");
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "cannot list objects (%s)", cuplas_h5_cause(cause));
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
