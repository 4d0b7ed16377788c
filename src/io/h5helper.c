/*
 * h5helper.c - the HDF5 helper processes (h5helper.h).
 *
 * Transport: one Unix stream socket per helper; a message is its length
 * (8 bytes, host order) and its bytes. A caller holds a helper for one
 * request and its reply, so a helper serves one thing at a time and
 * needs no framing beyond that.
 */
#define _GNU_SOURCE /* MSG_NOSIGNAL, SOCK_CLOEXEC */
#include "cuplas_build.h"

#include "io/h5helper.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "io/h5io.h"
#include "io/h5wire.h"

extern char **environ;

#define GREETING "cuplas-h5helper " PACKAGE_VERSION
#define GREET_TIMEOUT_MS 10000
#define MAX_MESSAGE ((uint64_t)256 << 20)   /* a sanity bound, far above any */
#define STOP_WAIT_MS 2000                   /* then SIGKILL                  */

typedef struct helper {
    pid_t pid;
    int fd;
    int busy, dead;
} helper;

struct cuplas_h5helpers {
    pthread_mutex_t mu;
    pthread_cond_t idle;       /* a helper became idle, or died */
    int n, alive;
    helper *h;
};

/* ------------------------------------------------------------- messages */

/* 0, or an errno (EPIPE when the peer is gone). */
static int send_all(int fd, const void *p, size_t n)
{
    const unsigned char *b = p;
    while (n) {
        ssize_t w = send(fd, b, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return w < 0 ? errno : EPIPE;
        b += w;
        n -= (size_t)w;
    }
    return 0;
}

/* 0, an errno, or -1 for end of file before the first byte. */
static int recv_all(int fd, void *p, size_t n)
{
    unsigned char *b = p;
    size_t got = 0;
    while (got < n) {
        ssize_t r = recv(fd, b + got, n - got, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r == 0)
            return got ? EPIPE : -1;
        if (r < 0)
            return errno;
        got += (size_t)r;
    }
    return 0;
}

static int send_msg(int fd, const void *p, size_t n)
{
    uint64_t len = n;
    int e = send_all(fd, &len, sizeof len);
    return e ? e : send_all(fd, p, n);
}

/* A whole message, malloc'd: 0, an errno, or -1 (end of file). */
static int recv_msg(int fd, unsigned char **p, size_t *n)
{
    uint64_t len = 0;
    int e = recv_all(fd, &len, sizeof len);

    *p = NULL;
    if (e)
        return e;
    if (len > MAX_MESSAGE)
        return EPROTO;
    if (!(*p = malloc(len ? (size_t)len : 1)))
        return ENOMEM;
    if ((e = recv_all(fd, *p, (size_t)len)) != 0) {
        free(*p);
        *p = NULL;
        return e < 0 ? EPIPE : e;
    }
    *n = (size_t)len;
    return 0;
}

/* -------------------------------------------------------------- helpers */

/* "exited with status 1", "was killed by signal 9" */
static void describe_exit(int status, char *buf, size_t size)
{
    if (WIFSIGNALED(status))
        snprintf(buf, size, "was killed by signal %d", WTERMSIG(status));
    else
        snprintf(buf, size, "exited with status %d", WEXITSTATUS(status));
}

/* The greeting, within GREET_TIMEOUT_MS: 0 or an errno. */
static int await_greeting(int fd)
{
    struct pollfd pf = {fd, POLLIN, 0};
    unsigned char *msg = NULL;
    size_t n = 0;
    int r;

    while ((r = poll(&pf, 1, GREET_TIMEOUT_MS)) < 0 && errno == EINTR)
        ;
    if (r == 0)
        return ETIMEDOUT;
    if (r < 0)
        return errno;
    if ((r = recv_msg(fd, &msg, &n)) != 0)
        return r < 0 ? EPIPE : r;
    r = n == strlen(GREETING) && !memcmp(msg, GREETING, n) ? 0 : EPROTO;
    free(msg);
    return r;
}

static int spawn_one(const char *exe, int i, helper *hp, cuplas_error *err)
{
    int sv[2] = {-1, -1}, rc = 0, e;
    char *argv[] = {(char *)exe, "__h5-helper", NULL};
    posix_spawn_file_actions_t fa;
    int have_fa = 0;

    hp->pid = -1;
    hp->fd = -1;
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_INTERNAL, "cannot create a socket for HDF5 helper %d: %s",
                    i, strerror(errno));
    if (sv[1] == CUPLAS_H5HELPER_FD) {   /* dup2 onto itself would keep CLOEXEC */
        int moved = fcntl(sv[1], F_DUPFD_CLOEXEC, CUPLAS_H5HELPER_FD + 1);
        if (moved < 0)
            CUPLAS_FAIL(err, CUPLAS_ERR_INTERNAL, "cannot move a socket: %s", strerror(errno));
        close(sv[1]);
        sv[1] = moved;
    }
    if ((e = posix_spawn_file_actions_init(&fa)) != 0 ||
        (have_fa = 1, e = posix_spawn_file_actions_adddup2(&fa, sv[1], CUPLAS_H5HELPER_FD)) ||
        (e = posix_spawn(&hp->pid, exe, &fa, NULL, argv, environ)) != 0) {
        hp->pid = -1;
        CUPLAS_FAIL(err, CUPLAS_ERR_INTERNAL, "cannot start HDF5 helper %d (%s): %s", i, exe,
                    strerror(e));
    }
    close(sv[1]);
    sv[1] = -1;
    hp->fd = sv[0];
    sv[0] = -1;
    if ((e = await_greeting(hp->fd)) != 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_INTERNAL, "HDF5 helper %d (%s) did not start: %s", i, exe,
                    e == EPROTO ? "wrong greeting" : strerror(e));
fail:
    if (have_fa)
        posix_spawn_file_actions_destroy(&fa);
    if (sv[0] >= 0) close(sv[0]);
    if (sv[1] >= 0) close(sv[1]);
    return rc;
}

/* Close hp's socket and reap it: after at most wait_ms, with SIGKILL.
 * *status gets its wait status (0 if it could not be reaped). */
static void retire(helper *hp, int wait_ms, int *status)
{
    int st = 0;
    struct timespec nap = {0, 1000000};

    if (hp->fd >= 0)
        close(hp->fd);
    hp->fd = -1;
    hp->dead = 1;
    if (hp->pid <= 0)
        return;
    for (int t = 0; t < wait_ms && waitpid(hp->pid, &st, WNOHANG) == 0; t++)
        nanosleep(&nap, NULL);
    if (waitpid(hp->pid, &st, WNOHANG) == 0) {
        kill(hp->pid, SIGKILL);
        waitpid(hp->pid, &st, 0);
    }
    hp->pid = -1;
    if (status)
        *status = st;
}

int cuplas_h5helpers_start(const char *exe, int n, cuplas_h5helpers **out, cuplas_error *err)
{
    cuplas_h5helpers *h = NULL;
    int rc = 0;

    *out = NULL;
    if (!exe || n < 1)
        return cuplas_error_set(err, CUPLAS_ERR_INTERNAL, "no HDF5 helper to start");
    if (!(h = calloc(1, sizeof *h)) || !(h->h = calloc((size_t)n, sizeof *h->h))) {
        free(h);
        return cuplas_error_set(err, CUPLAS_ERR_NOMEM, "out of memory");
    }
    pthread_mutex_init(&h->mu, NULL);
    pthread_cond_init(&h->idle, NULL);
    for (int i = 0; i < n; i++)
        h->h[i].fd = h->h[i].pid = -1;
    h->n = n;
    for (int i = 0; i < n; i++) {
        CUPLAS_TRY(spawn_one(exe, i, &h->h[i], err));
        h->alive++;
    }
    *out = h;
    h = NULL;
fail:
    cuplas_h5helpers_stop(h);
    return rc;
}

int cuplas_h5helpers_call(cuplas_h5helpers *h, const unsigned char *req, size_t len,
                          unsigned char **reply, size_t *reply_len, cuplas_error *err)
{
    helper *hp = NULL;
    int e, i = 0;

    *reply = NULL;
    pthread_mutex_lock(&h->mu);
    while (h->alive > 0) {
        for (i = 0; i < h->n && (h->h[i].busy || h->h[i].dead); i++)
            ;
        if (i < h->n)
            break;
        pthread_cond_wait(&h->idle, &h->mu);
    }
    if (h->alive > 0) {
        hp = &h->h[i];
        hp->busy = 1;
    }
    pthread_mutex_unlock(&h->mu);
    if (!hp)
        return cuplas_error_set(err, CUPLAS_ERR_INTERNAL, "no HDF5 helper left");

    if ((e = send_msg(hp->fd, req, len)) == 0)
        e = recv_msg(hp->fd, reply, reply_len);

    pthread_mutex_lock(&h->mu);
    hp->busy = 0;
    if (e) {
        /* end of file: it died (its status says how); anything else:
           it is killed, as it can no longer be trusted */
        int status = 0;
        pid_t pid = hp->pid;
        char how[64];
        retire(hp, e < 0 || e == EPIPE ? STOP_WAIT_MS : 0, &status);
        h->alive--;
        describe_exit(status, how, sizeof how);
        cuplas_error_set(err, CUPLAS_ERR_INTERNAL, "HDF5 helper %d (pid %d) %s (%s)", i,
                         (int)pid, how, e < 0 ? "end of file" : strerror(e));
    }
    pthread_cond_broadcast(&h->idle);
    pthread_mutex_unlock(&h->mu);
    return e ? CUPLAS_ERR_INTERNAL : 0;
}

int cuplas_h5helpers_count(const cuplas_h5helpers *h) { return h ? h->n : 0; }

int cuplas_h5helpers_alive(cuplas_h5helpers *h)
{
    if (!h)
        return 0;
    pthread_mutex_lock(&h->mu);
    int n = h->alive;
    pthread_mutex_unlock(&h->mu);
    return n;
}

pid_t cuplas_h5helpers_pid(const cuplas_h5helpers *h, int i)
{
    return h && i >= 0 && i < h->n ? h->h[i].pid : -1;
}

void cuplas_h5helpers_stop(cuplas_h5helpers *h)
{
    if (!h)
        return;
    /* every socket first: the helpers see end of file and exit together */
    for (int i = 0; i < h->n; i++)
        if (h->h[i].fd >= 0) {
            close(h->h[i].fd);
            h->h[i].fd = -1;
        }
    for (int i = 0; i < h->n; i++)
        retire(&h->h[i], STOP_WAIT_MS, NULL);
    pthread_cond_destroy(&h->idle);
    pthread_mutex_destroy(&h->mu);
    free(h->h);
    free(h);
}

/* --------------------------------------------------------- helper side */

int cuplas_h5helper_main(int fd)
{
    cuplas_error err;
    int e;

    /* a run stops on these; its helpers finish what is asked until the
       run closes their sockets */
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    signal(SIGUSR1, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
    cuplas_h5_quiet();
    cuplas_h5_tune();
    cuplas_error_clear(&err);
    if ((e = send_msg(fd, GREETING, strlen(GREETING))) != 0) {
        fprintf(stderr, "cuplas __h5-helper: fd %d: %s (started by `cuplas run` only)\n", fd,
                strerror(e));
        return 1;
    }
    for (;;) {
        unsigned char *req = NULL, *reply = NULL;
        size_t n = 0, reply_len = 0;
        if ((e = recv_msg(fd, &req, &n)) != 0)
            return e < 0 ? 0 : 1;   /* end of file: the run is over */
        int rc = cuplas_h5wire_serve(req, n, &reply, &reply_len, &err);
        free(req);
        if (rc == 0)
            e = send_msg(fd, reply, reply_len);
        free(reply);
        if (rc || e) {
            fprintf(stderr, "cuplas __h5-helper: %s\n", rc ? err.msg : strerror(e));
            return 1;
        }
    }
}
