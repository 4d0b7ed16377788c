/*
 * sysmem.c - the host memory limit (sysmem.h): sysconf for physical RAM,
 * then the cgroup: memory.max (v2) or memory.limit_in_bytes (v1) of this
 * process's group and each of its parents (a parent's limit binds as
 * well). A file that is missing or says "max" sets no limit.
 */
#include "util/sysmem.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The number in `path` ("max" and unreadable: 0 = none). */
static size_t read_limit(const char *path)
{
    FILE *fp = fopen(path, "r");
    char buf[64] = "";
    unsigned long long v;
    char *end;

    if (!fp)
        return 0;
    if (!fgets(buf, sizeof buf, fp))
        buf[0] = '\0';
    fclose(fp);
    v = strtoull(buf, &end, 10);
    if (end == buf || v == 0 || v >= (unsigned long long)SIZE_MAX)
        return 0;
    return (size_t)v;
}

/* The smallest limit from this process's group up to the root of its
 * hierarchy: v2 (line "0::PATH", file memory.max) or v1 (the line naming
 * the memory controller, file memory/PATH/memory.limit_in_bytes). */
static size_t cgroup_limit(int v2)
{
    char line[4096], path[4300];
    size_t best = 0;
    FILE *fp = fopen("/proc/self/cgroup", "r");

    if (!fp)
        return 0;
    while (fgets(line, sizeof line, fp)) {
        char *ctl = strchr(line, ':'), *rel = ctl ? strchr(ctl + 1, ':') : NULL;
        if (!rel)
            continue;
        *rel++ = '\0';
        ctl++;
        if (v2 ? *ctl != '\0' : strstr(ctl, "memory") == NULL)
            continue;
        rel[strcspn(rel, "\n")] = '\0';
        for (;;) {
            snprintf(path, sizeof path, "/sys/fs/cgroup%s%s/%s", v2 ? "" : "/memory",
                     strcmp(rel, "/") ? rel : "", v2 ? "memory.max" : "memory.limit_in_bytes");
            size_t v = read_limit(path);
            if (v && (!best || v < best))
                best = v;
            char *slash = strrchr(rel, '/');
            if (!slash || slash == rel) {
                if (slash && rel[1]) {   /* "/x": the root is next */
                    rel[1] = '\0';
                    continue;
                }
                break;
            }
            *slash = '\0';
        }
        break;
    }
    fclose(fp);
    return best;
}

size_t cuplas_host_memory_limit(const char **what)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    size_t limit = 0, v;
    const char *from = "unknown";

    if (pages > 0 && page > 0 && (unsigned long)pages <= SIZE_MAX / (unsigned long)page) {
        limit = (size_t)pages * (size_t)page;
        from = "physical memory";
    }
    if ((v = cgroup_limit(1)) != 0 && (!limit || v < limit)) {
        limit = v;
        from = "cgroup memory.max";
    }
    if ((v = cgroup_limit(0)) != 0 && (!limit || v < limit)) {
        limit = v;
        from = "cgroup memory.limit_in_bytes";
    }
    if (what)
        *what = from;
    return limit;
}

void *cuplas_alloc_big(size_t n)
{
    void *p = malloc(n);
#ifdef MADV_HUGEPAGE
    const uintptr_t huge = (uintptr_t)2 << 20;
    if (p && n >= (size_t)32 << 20) {
        uintptr_t a = ((uintptr_t)p + huge - 1) & ~(huge - 1);
        uintptr_t b = ((uintptr_t)p + n) & ~(huge - 1);
        if (b > a)
            (void)madvise((void *)a, b - a, MADV_HUGEPAGE);
    }
#endif
    return p;
}
