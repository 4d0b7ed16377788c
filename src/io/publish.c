/*
 * publish.c - temp files, pwrite of raw data, fsync and rename
 * (publish.h). No HDF5 calls.
 *
 * Design fact: HDF5 does not fsync, so without the fsync here a crash
 * after the rename could publish a file of zeros; the folder is fsync'd
 * after the rename so that the new name itself survives a crash.
 */
#include "io/publish.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/fsutil.h"

static int fsync_path(const char *path, int flags)
{
    int fd = open(path, flags);
    if (fd < 0)
        return -1;
    int r = fsync(fd);
    /* some filesystems refuse fsync on directories; that is not data loss */
    if (r != 0 && (flags & O_DIRECTORY) && (errno == EINVAL || errno == ENOTSUP))
        r = 0;
    close(fd);
    return r;
}

/* The umask without changing it (umask(2) can only set it, and other
 * threads create files meanwhile): /proc/self/status, Linux >= 4.7. */
static mode_t process_umask(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    unsigned m = 022;

    if (!f)
        return 022;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "Umask: %o", &m) == 1)
            break;
    fclose(f);
    return (mode_t)(m & 0777);
}

char *cuplas_tmp_create(const char *out_path, cuplas_error *err)
{
    const char *slash = strrchr(out_path, '/');
    const char *base = slash ? slash + 1 : out_path;
    int dlen = slash ? (int)(slash - out_path) + 1 : 0;   /* keeps the '/' */
    size_t n = strlen(out_path) + 64;
    char *tmp = malloc(n);

    if (!tmp) {
        cuplas_error_set(err, CUPLAS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    snprintf(tmp, n, "%.*s.%s.tmp.%ld.XXXXXX", dlen, out_path, base, (long)getpid());
    int fd = mkstemp(tmp);
    if (fd < 0) {
        cuplas_error_set(err, CUPLAS_ERR_OUTPUT, "cannot create a temporary file next to %s: %s",
                         out_path, strerror(errno));
        free(tmp);
        return NULL;
    }
    /* mkstemp makes 0600; a published file gets the mode open() would give
       (on a cluster the results are read by others than the batch user) */
    fchmod(fd, 0666 & ~process_umask());
    close(fd);
    return tmp;
}

int cuplas_tmp_publish(const char *tmp, const char *out_path, int sync, cuplas_error *err)
{
    char *dir = cuplas_path_dir(out_path);
    int rc = 0;

    if (!dir)
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
    /* HDF5 does not fsync: without this a crash after rename can publish zeros */
    if (sync && fsync_path(tmp, O_RDONLY) != 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_OUTPUT, "fsync %s: %s", tmp, strerror(errno));
    if (rename(tmp, out_path) != 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_OUTPUT, "cannot rename %s to %s: %s", tmp, out_path,
                    strerror(errno));
    if (sync && fsync_path(dir, O_RDONLY | O_DIRECTORY) != 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_OUTPUT, "fsync folder %s: %s", dir, strerror(errno));
fail:
    free(dir);
    return rc;
}

int cuplas_out_dir_check(const char *dir, cuplas_error *err)
{
    struct stat st;
    if (stat(dir, &st) != 0)
        return cuplas_error_set(err, CUPLAS_ERR_OUTPUT, "output folder %s does not exist", dir);
    if (!S_ISDIR(st.st_mode))
        return cuplas_error_set(err, CUPLAS_ERR_OUTPUT, "output folder %s is not a directory", dir);
    if (access(dir, W_OK | X_OK) != 0)
        return cuplas_error_set(err, CUPLAS_ERR_OUTPUT, "output folder %s is not writable", dir);
    return 0;
}

/* pwrite all of buf at off, resuming after short writes and EINTR. */
static int pwrite_all(int fd, const unsigned char *buf, size_t n, off_t off)
{
    while (n) {
        ssize_t w = pwrite(fd, buf, n, off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return w < 0 ? errno : EIO;
        buf += w;
        n -= (size_t)w;
        off += w;
    }
    return 0;
}

typedef struct write_ctx {
    const cuplas_h5_encoded *enc;
    int fd;
} write_ctx;

/* Chunk j of sorted (j < nchunks) or of index at its place: 0 or errno. */
static int write_one(void *p, int64_t j)
{
    const write_ctx *x = p;
    const cuplas_h5_encoded *enc = x->enc;
    int which = (size_t)j >= enc->nchunks;
    size_t ci = which ? (size_t)j - enc->nchunks : (size_t)j;
    size_t cell = cuplas_h5_cell_bytes(enc, which);
    size_t row = cell * (size_t)enc->W, r0 = ci * (size_t)enc->chunk_rows;
    size_t rows = (size_t)enc->H - r0 < (size_t)enc->chunk_rows ? (size_t)enc->H - r0
                                                                 : (size_t)enc->chunk_rows;
    const cuplas_h5_chunk *c = which ? &enc->index[ci] : &enc->sorted[ci];
    return pwrite_all(x->fd, c->data, rows * row, (off_t)(enc->raw_at[which] + r0 * row));
}

/* The in-memory file's pieces (every byte but the raw data regions, which
 * write_one stores next): 0 or errno. */
static int write_image(int fd, const cuplas_h5_encoded *enc)
{
    const unsigned char *p = enc->image;
    for (int k = 0; k < enc->nseg; k++) {
        int e = pwrite_all(fd, p, (size_t)enc->seg[k][1], (off_t)enc->seg[k][0]);
        if (e)
            return e;
        p += enc->seg[k][1];
    }
    return 0;
}

int cuplas_h5_write_raw(const char *tmp, const cuplas_h5_encoded *enc, cuplas_pool *pool,
                        cuplas_error *err)
{
    write_ctx x = {enc, -1};
    int bad_errno = 0, rc = 0;

    if (!enc->raw_pending && !enc->image)
        return 0;
    if ((x.fd = open(tmp, O_WRONLY)) < 0)
        return cuplas_error_set(err, CUPLAS_ERR_OUTPUT, "cannot open %s: %s", tmp,
                                strerror(errno));
    if (enc->image)
        bad_errno = write_image(x.fd, enc);
    /* page-cache copies of many MiB: in parallel, like the encoding */
    if (enc->raw_pending && !bad_errno)
        cuplas_par_for(pool, 2 * (int64_t)enc->nchunks, write_one, &x, &bad_errno);
    if (close(x.fd) != 0 && !bad_errno)
        bad_errno = errno;
    if (bad_errno)
        rc = cuplas_error_set(err, CUPLAS_ERR_OUTPUT, "cannot write %s: %s", tmp,
                              strerror(bad_errno));
    return rc;
}

int cuplas_publish_bytes(const char *out_path, const void *data, size_t size, int sync,
                         cuplas_error *err)
{
    char *tmp = cuplas_tmp_create(out_path, err);
    int rc = 0;

    if (!tmp)
        return err->code ? (int)err->code : CUPLAS_ERR_OUTPUT;
    FILE *f = fopen(tmp, "wb");
    int bad = !f || fwrite(data, 1, size, f) != size;
    if (f && fclose(f) != 0)
        bad = 1;
    if (bad)
        rc = cuplas_error_set(err, CUPLAS_ERR_OUTPUT, "cannot write %s: %s", out_path,
                              strerror(errno));
    else
        rc = cuplas_tmp_publish(tmp, out_path, sync, err);
    if (rc)
        unlink(tmp);
    free(tmp);
    return rc;
}
