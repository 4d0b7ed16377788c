/*
 * cmp_outputs.c - are two output folders byte-identical where it counts?
 *
 *   cmp_outputs DIR_A DIR_B
 *
 * For every *.h5 in DIR_A, the file of the same name in DIR_B must exist
 * and every `index` and `sorted` dataset in it must hold the same bytes
 * (attributes such as wall time and device legitimately differ). Prints
 * one line per difference and "N identical, M differ"; exit 0 only if all
 * are identical and both folders hold the same set of outputs.
 */
#include <dirent.h>
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct { hid_t other; int same, compared; } visit_ctx;

static void *read_all(hid_t ds, size_t *bytes)
{
    hid_t type = H5Dget_type(ds), space = H5Dget_space(ds);
    hssize_t n = H5Sget_simple_extent_npoints(space);
    *bytes = (size_t)n * H5Tget_size(type);
    void *buf = malloc(*bytes ? *bytes : 1);
    if (buf && H5Dread(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) {
        free(buf);
        buf = NULL;
    }
    H5Tclose(type);
    H5Sclose(space);
    return buf;
}

static herr_t visit(hid_t obj, const char *name, const H5O_info_t *info, void *op)
{
    visit_ctx *v = op;
    const char *base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
    if (info->type != H5O_TYPE_DATASET || (strcmp(base, "index") && strcmp(base, "sorted")))
        return 0;
    hid_t a = H5Dopen2(obj, name, H5P_DEFAULT), b = H5Dopen2(v->other, name, H5P_DEFAULT);
    size_t na = 0, nb = 0;
    void *ba = a >= 0 ? read_all(a, &na) : NULL, *bb = b >= 0 ? read_all(b, &nb) : NULL;
    int same = ba && bb && na == nb && memcmp(ba, bb, na) == 0;
    if (!same)
        printf("differs: %s\n", name);
    v->same &= same;
    v->compared++;
    free(ba);
    free(bb);
    if (a >= 0) H5Dclose(a);
    if (b >= 0) H5Dclose(b);
    return 0;
}

static int count_h5(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    while (d && (e = readdir(d)))
        n += strlen(e->d_name) > 3 && !strcmp(e->d_name + strlen(e->d_name) - 3, ".h5");
    if (d)
        closedir(d);
    return n;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: cmp_outputs DIR_A DIR_B\n");
        return 2;
    }
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    DIR *d = opendir(argv[1]);
    struct dirent *e;
    int same = 0, differ = 0;
    while (d && (e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 4 || strcmp(e->d_name + len - 3, ".h5"))
            continue;
        char pa[4096], pb[4096];
        snprintf(pa, sizeof pa, "%s/%s", argv[1], e->d_name);
        snprintf(pb, sizeof pb, "%s/%s", argv[2], e->d_name);
        hid_t fa = H5Fopen(pa, H5F_ACC_RDONLY, H5P_DEFAULT), fb = H5Fopen(pb, H5F_ACC_RDONLY, H5P_DEFAULT);
        visit_ctx v = {fb, fa >= 0 && fb >= 0, 0};
        if (v.same)
            H5Ovisit2(fa, H5_INDEX_NAME, H5_ITER_NATIVE, visit, &v, H5O_INFO_BASIC);
        if (v.same && v.compared >= 2)
            same++;
        else {
            differ++;
            printf("differs: %s\n", e->d_name);
        }
        if (fa >= 0) H5Fclose(fa);
        if (fb >= 0) H5Fclose(fb);
    }
    if (d)
        closedir(d);
    int extra = count_h5(argv[2]) - (same + differ);
    printf("%d identical, %d differ%s\n", same, differ, extra ? ", file sets differ" : "");
    return differ || extra || !same ? 1 : 0;
}
