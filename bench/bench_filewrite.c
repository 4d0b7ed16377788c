/*
 * bench_filewrite.c - how fast can a gathered PLY body reach a file?
 * (workshop program: not part of cuplas)
 *
 *   bench_filewrite PATH ROWS ROW_BYTES THREADS MODE [sync]
 *
 * Gathers ROWS rows of ROW_BYTES from a source buffer in a random order
 * (as io/ply_write.c does for a sorted scene) into PATH, on THREADS
 * threads, by MODE:
 *   pwrite  - 4 MiB blocks gathered into a private buffer, then pwrite
 *             (ply_write.c's way; buffered writes to one file take the
 *             inode's lock, so the copies into the page cache queue);
 *   wb      - as pwrite, plus sync_file_range(WRITE) of each block
 *             (starts its writeback at once);
 *   mmap    - the file sized with ftruncate, mapped shared, each thread
 *             gathering straight into its part of the mapping.
 * Prints one JSON line: seconds to write, to fdatasync ("sync" given),
 * and GB/s. The file is removed afterwards.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define BLOCK ((size_t)4 << 20)

typedef struct shared {
    const unsigned char *src;
    const int64_t *perm;
    int64_t rows;
    size_t rb;
    int fd, mode, threads;
    unsigned char *map;
    int failed;
} shared;

typedef struct worker {
    shared *s;
    int id;
    pthread_t t;
} worker;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void *run(void *p)
{
    worker *w = p;
    shared *s = w->s;
    int64_t per = (int64_t)(BLOCK / s->rb), nb = (s->rows + per - 1) / per;
    unsigned char *buf = s->mode == 2 ? NULL : malloc(BLOCK);

    for (int64_t b = w->id; b < nb; b += s->threads) {   /* blocks dealt round robin */
        int64_t r0 = b * per, r1 = r0 + per < s->rows ? r0 + per : s->rows;
        size_t off = (size_t)r0 * s->rb, len = (size_t)(r1 - r0) * s->rb;
        unsigned char *d = s->mode == 2 ? s->map + off : buf;
        for (int64_t k = r0; k < r1; k++)
            memcpy(d + (size_t)(k - r0) * s->rb, s->src + (size_t)s->perm[k] * s->rb, s->rb);
        if (s->mode == 2)
            continue;
        for (size_t done = 0; done < len;) {
            ssize_t n = pwrite(s->fd, buf + done, len - done, (off_t)(off + done));
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                s->failed = 1;
                break;
            }
            done += (size_t)n;
        }
        if (s->mode == 1)
            sync_file_range(s->fd, (off_t)off, (off_t)len, SYNC_FILE_RANGE_WRITE);
    }
    free(buf);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 6) {
        fprintf(stderr, "usage: bench_filewrite PATH ROWS ROW_BYTES THREADS pwrite|wb|mmap [sync]\n");
        return 2;
    }
    shared s = {0};
    const char *path = argv[1];
    s.rows = atoll(argv[2]);
    s.rb = (size_t)atoll(argv[3]);
    s.threads = atoi(argv[4]);
    s.mode = !strcmp(argv[5], "wb") ? 1 : !strcmp(argv[5], "mmap") ? 2 : 0;
    int do_sync = argc > 6 && !strcmp(argv[6], "sync");
    size_t bytes = (size_t)s.rows * s.rb;
    unsigned char *src = malloc(bytes);
    int64_t *perm = malloc((size_t)s.rows * sizeof *perm);
    if (!src || !perm || s.threads < 1 || s.rb < 1)
        return 1;
    for (size_t i = 0; i < bytes; i++)
        src[i] = (unsigned char)(i * 2654435761u >> 13);
    for (int64_t i = 0; i < s.rows; i++)
        perm[i] = i;
    uint64_t x = 88172645463325252ull;   /* xorshift Fisher-Yates */
    for (int64_t i = s.rows - 1; i > 0; i--) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        int64_t j = (int64_t)(x % (uint64_t)(i + 1)), t = perm[i];
        perm[i] = perm[j], perm[j] = t;
    }
    s.src = src;
    s.perm = perm;
    if ((s.fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644)) < 0) {
        perror(path);
        return 1;
    }
    double t0 = now();
    if (s.mode == 2) {
        if (ftruncate(s.fd, (off_t)bytes) != 0 ||
            (s.map = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, s.fd, 0)) == MAP_FAILED) {
            perror("mmap");
            return 1;
        }
    }
    worker *w = calloc((size_t)s.threads, sizeof *w);
    for (int i = 0; i < s.threads; i++) {
        w[i] = (worker){.s = &s, .id = i};
        pthread_create(&w[i].t, NULL, run, &w[i]);
    }
    for (int i = 0; i < s.threads; i++)
        pthread_join(w[i].t, NULL);
    if (s.map)
        munmap(s.map, bytes);
    double t1 = now();
    if (do_sync && fdatasync(s.fd) != 0)
        s.failed = 1;
    double t2 = now();
    close(s.fd);
    unlink(path);
    printf("{\"mode\":\"%s\",\"threads\":%d,\"rows\":%lld,\"row_bytes\":%zu,\"write_s\":%.4f,"
           "\"sync_s\":%.4f,\"write_gb_s\":%.3f,\"ok\":%s}\n",
           argv[5], s.threads, (long long)s.rows, s.rb, t1 - t0, t2 - t1, bytes / (t1 - t0) / 1e9,
           s.failed ? "false" : "true");
    free(w);
    free(src);
    free(perm);
    return s.failed;
}
