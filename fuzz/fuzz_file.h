/*
 * fuzz_file.h - the one helper the libFuzzer targets share: the input's
 * bytes as a file, since every reader under test opens a path.
 */
#ifndef CUPLAS_FUZZ_FILE_H
#define CUPLAS_FUZZ_FILE_H

#include <stdlib.h>
#include <sys/types.h>
#include <unistd.h>

/* Write p[0..n) to a new file named from the mkstemps template path (its
 * last suffixlen characters kept, e.g. ".ply"); 0, or -1 with no file
 * left behind. */
static inline int fuzz_file(char *path, int suffixlen, const void *p, size_t n)
{
    int fd = mkstemps(path, suffixlen);
    if (fd < 0)
        return -1;
    int ok = write(fd, p, n) == (ssize_t)n;
    close(fd);
    if (!ok)
        unlink(path);
    return ok ? 0 : -1;
}

#endif
