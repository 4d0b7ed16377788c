/*
 * ply_open.c - cuplas_ply_open (ply.h): which of the three scene formats a
 * path holds, and the table it becomes.
 *
 * Design facts: this is the one file that knows every format, so the
 * parsers stay below it: ply.c parses any PLY header, splat.c and
 * ply_compressed.c turn theirs into decoded tables, and none of them calls
 * back up here. A `.splat` is known by its name (it has no header); a
 * compressed PLY by its header (any name), after the ordinary parse. The
 * path is stat'ed before any open: open() of a FIFO waits for a writer (a
 * hung run, deaf to SIGTERM), and a folder or device is no scene either.
 */
#define _GNU_SOURCE /* strdup, strcasecmp */
#include "io/ply.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "io/ply_priv.h"
#include "io/splat.h"
#include "util/fsutil.h"

static int has_suffix(const char *path, const char *sfx)
{
    size_t l = strlen(path), n = strlen(sfx);
    return l >= n && !strcasecmp(path + l - n, sfx);
}

int cuplas_ply_is_scene_path(const char *path)
{
    return has_suffix(path, ".ply") || has_suffix(path, ".splat");
}

/* A PLY file: its header parsed, then, if it is a compressed PLY's, the
 * table its packed rows decode into; else the body checked against it. */
static int open_ply(const char *path, cuplas_ply *p, cuplas_error *err)
{
    cuplas_ply__header hd = {0};
    int rc = cuplas_ply__parse(path, p, &hd, err);

    if (rc == 0 && cuplas_plyc__claims(p, hd.el, hd.nel))
        rc = cuplas_plyc__adopt(p, hd.el, hd.nel, hd.npre, err);
    else if (rc == 0)
        rc = cuplas_ply__check_body(p, &hd, err);
    cuplas_ply__header_free(&hd);
    return rc;
}

int cuplas_ply_open(const char *path, cuplas_ply *p, cuplas_error *err)
{
    memset(p, 0, sizeof *p);
    if (!(p->path = strdup(path)))
        return cuplas_error_set(err, CUPLAS_ERR_NOMEM, "out of memory");
    if (cuplas_input_file_check(path, err) != 0) {
        cuplas_error_where(err, "%s", path);
        return (int)err->code;
    }
    return has_suffix(path, ".splat") ? cuplas_splat_open(path, p, err) : open_ply(path, p, err);
}
