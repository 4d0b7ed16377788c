/*
 * startup_probe.cu - workshop: what a process pays the CUDA driver to start
 * and to stop, apart from any sort (issue 17's fixed costs).
 *
 *   startup_probe MODE [LANES DEV_MB HOST_MB [END]]
 *
 * MODE: none (no CUDA call), count (cudaGetDeviceCount: loads the driver),
 * ctx (+ the primary context of device 0), lanes (+ LANES streams, each with
 * DEV_MB of device memory and HOST_MB of malloc'd, touched, registered host
 * memory: a lane's shape). END says how the process leaves: exit (return
 * from main, the driver tears the context down in the kernel's exit path),
 * free (free and unregister everything first, then return), reset
 * (cudaDeviceReset first, then return), quick (print, flush, then _exit:
 * no atexit handler runs, so the CUDA runtime's own teardown is skipped
 * and only the kernel's release of the device file remains).
 *
 * Prints one JSON line of absolute CLOCK_REALTIME stamps; the caller takes
 * its own stamps around the process (bash $EPOCHREALTIME) so that exec and
 * exit are in the account as well.
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); return 2; } } while (0)

int main(int argc, char **argv)
{
    double t_main = now(), t_drv = 0, t_ctx = 0, t_alloc = 0, t_end0 = 0, t_end1 = 0;
    const char *mode = argc > 1 ? argv[1] : "ctx";
    int lanes = argc > 2 ? atoi(argv[2]) : 0;
    size_t dev_mb = argc > 3 ? strtoul(argv[3], NULL, 10) : 0;
    size_t host_mb = argc > 4 ? strtoul(argv[4], NULL, 10) : 0;
    const char *end = argc > 5 ? argv[5] : "exit";
    cudaStream_t s[64];
    void *d[64], *h[64];
    int n = 0;

    if (lanes > 64)
        lanes = 64;
    if (strcmp(mode, "none") != 0) {
        CK(cudaGetDeviceCount(&n));
        t_drv = now();
    }
    if (!strcmp(mode, "ctx") || !strcmp(mode, "lanes")) {
        CK(cudaSetDevice(0));
        CK(cudaFree(0));
        t_ctx = now();
    }
    if (!strcmp(mode, "lanes")) {
        for (int k = 0; k < lanes; k++) {
            CK(cudaStreamCreateWithFlags(&s[k], cudaStreamNonBlocking));
            CK(cudaMalloc(&d[k], dev_mb << 20));
            CK(cudaMemsetAsync(d[k], 0, dev_mb << 20, s[k]));
            if (!(h[k] = malloc((host_mb << 20) + 1)))
                return 3;
            memset(h[k], 1, host_mb << 20);
            if (host_mb)
                CK(cudaHostRegister(h[k], host_mb << 20, cudaHostRegisterDefault));
        }
        CK(cudaDeviceSynchronize());
        t_alloc = now();
        t_end0 = now();
        if (!strcmp(end, "free")) {
            for (int k = 0; k < lanes; k++) {
                if (host_mb)
                    CK(cudaHostUnregister(h[k]));
                free(h[k]);
                CK(cudaFree(d[k]));
                CK(cudaStreamDestroy(s[k]));
            }
        } else if (!strcmp(end, "reset")) {
            CK(cudaDeviceReset());
        }
        t_end1 = now();
    }
    printf("{\"mode\":\"%s\",\"lanes\":%d,\"dev_mb\":%zu,\"host_mb\":%zu,\"end\":\"%s\","
           "\"gpus\":%d,\"t_main\":%.6f,\"t_driver\":%.6f,\"t_ctx\":%.6f,\"t_alloc\":%.6f,"
           "\"t_end0\":%.6f,\"t_end1\":%.6f}\n", mode, lanes, dev_mb, host_mb, end, n, t_main,
           t_drv, t_ctx, t_alloc, t_end0, t_end1);
    fflush(stdout);
    if (!strcmp(end, "quick"))
        _exit(0);
    return 0;
}
