/*
 * h5helper.h - HDF5 helper processes: more HDF5 libraries than one.
 *
 * HDF5 is not thread-safe, so a process makes its HDF5 calls on one thread
 * (h5exec.c). Many small grids on several GPUs outrun that thread: a
 * 256^2 x 3 job needs ~0.4 ms of it, 2/3 of which builds the output's
 * metadata. Helper processes build that metadata instead (h5wire.h), each
 * with its own library, in parallel. They are the same executable
 * (`cuplas __h5-helper`, started with posix_spawn: no fork of a process
 * that holds CUDA and OpenMP threads), talk over one socket each, take no
 * signal that stops a run (they live until their socket closes) and touch
 * no file. A helper that dies is retired; its caller falls back to the
 * HDF5 thread, so a job never fails because of a helper.
 */
#ifndef CUPLAS_H5HELPER_H
#define CUPLAS_H5HELPER_H

#include <stddef.h>
#include <sys/types.h>

#include "util/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cuplas_h5helpers cuplas_h5helpers;

/* Start n helpers running `exe __h5-helper` and wait for each to greet. */
int cuplas_h5helpers_start(const char *exe, int n, cuplas_h5helpers **out, cuplas_error *err);

/* Send req to an idle helper (waiting for one) and return its reply
 * (malloc'd). Thread-safe. Nonzero (err says which helper and why) when
 * the helper died or broke the protocol, or none is left: the caller does
 * the work itself. */
int cuplas_h5helpers_call(cuplas_h5helpers *h, const unsigned char *req, size_t len,
                          unsigned char **reply, size_t *reply_len, cuplas_error *err);

/* Helpers started, and of them still serving. */
int cuplas_h5helpers_count(const cuplas_h5helpers *h);
int cuplas_h5helpers_alive(cuplas_h5helpers *h);

/* Process id of helper i (for logs and tests), or -1. */
pid_t cuplas_h5helpers_pid(const cuplas_h5helpers *h, int i);

/* Close every socket and reap the helpers. NULL is a no-op. */
void cuplas_h5helpers_stop(cuplas_h5helpers *h);

/* The helper's side: greet, then serve requests on fd until it closes.
 * The exit status of `cuplas __h5-helper`. */
int cuplas_h5helper_main(int fd);

/* The fd a helper finds its socket on. */
#define CUPLAS_H5HELPER_FD 3

#ifdef __cplusplus
}
#endif
#endif
