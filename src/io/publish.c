/*
 * publish.c - temp files, pwrite of raw data, fsync and rename
 * (publish.h). No HDF5 calls.
 *
 * Design fact: HDF5 does not fsync, so without the fsync here a crash
 * after the rename could publish a file of zeros; the folder is fsync'd
 * after the rename so that the new name itself survives a crash. In a run
 * the folder's fsync is batched (cuplas_dirsync): only the data's sync
 * must come before the rename for a name to never show missing data.
 */
#define _GNU_SOURCE   /* sync_file_range */
#include "io/publish.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <pthread.h>
#include <unistd.h>

#include "util/clock.h"

#include "util/fsutil.h"

void cuplas_tmp_writeback_range(int fd, int64_t off, int64_t len)
{
#ifdef SYNC_FILE_RANGE_WRITE
    if (fd >= 0)
        (void)sync_file_range(fd, (off_t)off, (off_t)len, SYNC_FILE_RANGE_WRITE);
#else
    (void)fd, (void)off, (void)len;
#endif
}

void cuplas_tmp_writeback(int fd) { cuplas_tmp_writeback_range(fd, 0, 0); }

static int fsync_path(const char *path, int flags)
{
    int fd = open(path, flags);
    if (fd < 0)
        return -1;
    /* a regular file needs its data and size, not its times: fdatasync */
    int r = flags & O_DIRECTORY ? fsync(fd) : fdatasync(fd);
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

/* A temp file's name for out_path: ".BASE.tmp.PID.XXXXXX" in out_path's
 * folder (mkstemp fills the X's). The one place that spells the form:
 * cuplas_tmp_create makes it and cuplas_tmp_name_check measures it. With
 * buf NULL it only counts; returns the length. */
static size_t tmp_name(char *buf, size_t n, const char *out_path, long pid)
{
    const char *slash = strrchr(out_path, '/');
    const char *base = slash ? slash + 1 : out_path;
    int dlen = slash ? (int)(slash - out_path) + 1 : 0;   /* keeps the '/' */
    return (size_t)snprintf(buf, n, "%.*s.%s.tmp.%ld.XXXXXX", dlen, out_path, base, pid);
}

/* The longest pid Linux gives (PID_MAX_LIMIT, 2^22): a temp name made by
 * any process is at most this pid's length. */
#define LONGEST_PID 4194304L

/* The temp name's template, ".<name>.tmp.<pid>.XXXXXX" (malloc'd). */
static char *tmp_template(const char *out_path, cuplas_error *err)
{
    long pid = (long)getpid();
    size_t n = tmp_name(NULL, 0, out_path, pid) + 1;
    char *tmp = malloc(n);

    if (!tmp)
        cuplas_error_set(err, CUPLAS_ERR_NOMEM, "out of memory");
    else
        tmp_name(tmp, n, out_path, pid);
    return tmp;
}

char *cuplas_tmp_create(const char *out_path, cuplas_error *err)
{
    char *tmp = tmp_template(out_path, err);
    if (!tmp)
        return NULL;
    int fd = mkstemp(tmp);
    if (fd < 0) {
        /* the reason first: a long path is cut in its middle (error.h) */
        cuplas_error_set(err, CUPLAS_ERR_OUTPUT, "cannot create a temporary file (%s) next to "
                         "%s", strerror(errno), out_path);
        free(tmp);
        return NULL;
    }
    /* mkstemp makes 0600; a published file gets the mode open() would give
       (on a cluster the results are read by others than the batch user) */
    fchmod(fd, 0666 & ~process_umask());
    close(fd);
    return tmp;
}

char *cuplas_tmp_dir_create(const char *out_path, cuplas_error *err)
{
    char *tmp = tmp_template(out_path, err);
    if (!tmp)
        return NULL;
    if (!mkdtemp(tmp)) {
        cuplas_error_set(err, CUPLAS_ERR_OUTPUT, "cannot create a temporary folder next to %s: "
                         "%s", out_path, strerror(errno));
        free(tmp);
        return NULL;
    }
    /* mkdtemp makes 0700; a published folder gets mkdir's mode */
    chmod(tmp, 0777 & ~process_umask());
    return tmp;
}

int cuplas_tmp_name_check(const char *out_path, cuplas_error *err)
{
    /* what the temp name adds to the path, and so to the file's name */
    const size_t total = tmp_name(NULL, 0, out_path, LONGEST_PID);
    const int extra = (int)(total - strlen(out_path));
    const char *p = out_path;

    for (;;) {
        const char *slash = strchr(p, '/');
        size_t len = slash ? (size_t)(slash - p) : strlen(p);
        if (!slash) {   /* the file's own name: its temp name is longer */
            if (len + (size_t)extra > NAME_MAX)
                return cuplas_error_set(err, CUPLAS_ERR_OUTPUT, "the output's file name is "
                                        "%zu bytes: with its temp name's %d more it is over "
                                        "the %d a file name can have",
                                        len, extra, NAME_MAX);
            break;
        }
        if (len > NAME_MAX)
            return cuplas_error_set(err, CUPLAS_ERR_OUTPUT, "a folder name of the output's "
                                    "path is %zu bytes, over the %d a file name can have",
                                    len, NAME_MAX);
        p = slash + 1;
    }
    if (total >= PATH_MAX)
        return cuplas_error_set(err, CUPLAS_ERR_OUTPUT, "the output's path is %zu bytes: with "
                                "its temp name's %d more it is over the %d a path can have",
                                strlen(out_path), extra, PATH_MAX - 1);
    return 0;
}

/* rename replaces whatever has the name: a device, a FIFO or a socket
 * there would become a regular file. The commands refuse such an output
 * before they start (cuplas_jobs_check_paths); this catches one made
 * since (and says so for a folder, where rename fails less clearly). */
static int refuse_special(const char *out_path, cuplas_error *err)
{
    int rc = 0;
    if (cuplas_path_special(out_path))
        CUPLAS_FAIL_IN(err, CUPLAS_ERR_OUTPUT, out_path, "exists and is not a regular file: "
                       "not replaced");
fail:
    return rc;
}

int cuplas_tmp_publish(const char *tmp, const char *out_path, int sync, cuplas_error *err)
{
    char *dir = cuplas_path_dir(out_path);
    int rc = 0;

    if (!dir)
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
    CUPLAS_TRY(refuse_special(out_path, err));
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

/* ---------------------------------------------------- batched folders */

typedef struct pending_dir {
    char *dir;
    double since;            /* oldest unsynced rename, cuplas_now_s()    */
    int *jobs, njobs, cap;   /* results renamed there since the last sync */
} pending_dir;

struct cuplas_dirsync {
    pthread_mutex_t mu;
    pending_dir *v;
    int n, cap;
};

int cuplas_dirsync_create(cuplas_dirsync **out, cuplas_error *err)
{
    cuplas_dirsync *ds = calloc(1, sizeof *ds);
    *out = NULL;
    if (!ds)
        return cuplas_error_set(err, CUPLAS_ERR_NOMEM, "out of memory");
    pthread_mutex_init(&ds->mu, NULL);
    *out = ds;
    return 0;
}

void cuplas_dirsync_free(cuplas_dirsync *ds)
{
    if (!ds)
        return;
    for (int k = 0; k < ds->n; k++) {
        free(ds->v[k].dir);
        free(ds->v[k].jobs);
    }
    free(ds->v);
    pthread_mutex_destroy(&ds->mu);
    free(ds);
}

/* Under mu: remember that `job` was renamed into dir. 0 or -1 (memory). */
static int note_rename(cuplas_dirsync *ds, char *dir, int job)
{
    pending_dir *p = NULL;
    for (int k = 0; k < ds->n && !p; k++)
        if (!strcmp(ds->v[k].dir, dir))
            p = &ds->v[k];
    if (!p) {
        if (ds->n == ds->cap) {
            int cap = ds->cap ? 2 * ds->cap : 4;
            pending_dir *v = realloc(ds->v, (size_t)cap * sizeof *v);
            if (!v)
                return -1;
            ds->v = v;
            ds->cap = cap;
        }
        p = &ds->v[ds->n++];
        memset(p, 0, sizeof *p);
        if (!(p->dir = strdup(dir))) {
            ds->n--;
            return -1;
        }
    }
    if (p->njobs == p->cap) {
        int cap = p->cap ? 2 * p->cap : 16;
        int *j = realloc(p->jobs, (size_t)cap * sizeof *j);
        if (!j)
            return -1;
        p->jobs = j;
        p->cap = cap;
    }
    if (p->njobs == 0)
        p->since = cuplas_now_s();
    p->jobs[p->njobs++] = job;
    return 0;
}

int cuplas_tmp_publish_deferred(const char *tmp, const char *out_path, cuplas_dirsync *ds,
                                int job, cuplas_error *err)
{
    char *dir = cuplas_path_dir(out_path);
    int rc = 0, noted;

    if (!dir)
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
    CUPLAS_TRY(refuse_special(out_path, err));
    if (fsync_path(tmp, O_RDONLY) != 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_OUTPUT, "fsync %s: %s", tmp, strerror(errno));
    /* noted before the rename, so a flush that races with it still
       covers it; a note without a rename costs one spare fsync */
    pthread_mutex_lock(&ds->mu);
    noted = note_rename(ds, dir, job);
    pthread_mutex_unlock(&ds->mu);
    if (noted != 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
    if (rename(tmp, out_path) != 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_OUTPUT, "cannot rename %s to %s: %s", tmp, out_path,
                    strerror(errno));
fail:
    free(dir);
    return rc;
}

int cuplas_dirsync_flush(cuplas_dirsync *ds, double max_age_s, int **bad, int *nbad,
                         cuplas_error *err)
{
    double now = cuplas_now_s();
    int rc = 0;

    if (bad)
        *bad = NULL;
    if (nbad)
        *nbad = 0;
    if (!ds)
        return 0;
    for (;;) {
        /* take one due folder's list out under the lock, sync outside it:
           renames into it meanwhile start a new list */
        pending_dir p = {0};
        pthread_mutex_lock(&ds->mu);
        for (int k = 0; k < ds->n; k++)
            if (ds->v[k].njobs && (max_age_s <= 0 || now - ds->v[k].since >= max_age_s)) {
                p = ds->v[k];
                if (!(p.dir = strdup(p.dir)))
                    p.jobs = NULL;   /* no memory: leave it for the next flush */
                else
                    ds->v[k].jobs = NULL, ds->v[k].njobs = ds->v[k].cap = 0;
                break;
            }
        pthread_mutex_unlock(&ds->mu);
        if (!p.jobs)
            break;
        if (fsync_path(p.dir, O_RDONLY | O_DIRECTORY) != 0) {
            int e = errno;
            if (!rc)
                rc = cuplas_error_set(err, CUPLAS_ERR_OUTPUT, "fsync folder %s: %s", p.dir,
                                      strerror(e));
            int *v = bad ? realloc(*bad, (size_t)(*nbad + p.njobs) * sizeof *v) : NULL;
            if (v) {
                memcpy(v + *nbad, p.jobs, (size_t)p.njobs * sizeof *v);
                *bad = v;
                *nbad += p.njobs;
            }
        }
        free(p.dir);
        free(p.jobs);
    }
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
