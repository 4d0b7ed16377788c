/*
 * scene_tile.c - a production-sized 3DGS PLY from a small real capture,
 * for timing the scene path end to end (read, sort, HDF5 and PLY out).
 *
 * Usage: bench/scene_tile IN.splat OUT.ply COPIES
 *
 * The capture's splats are laid COPIES times side by side on a cubic
 * lattice (each copy shifted by the capture's extent), in the layout a
 * 3DGS trainer writes: 62 float properties a vertex, x y z, nx ny nz (0),
 * f_dc_0..2 (the .splat colour as SH band 0), f_rest_0..44 (small
 * deterministic values: a .splat has no higher bands), opacity (logit of
 * the .splat alpha), scale_0..2 (log), rot_0..3. Byte-identical for the
 * same inputs.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROPS 62
#define SH_C0 0.28209479177387814

static const char *const head[] = {"x", "y", "z", "nx", "ny", "nz", "f_dc_0", "f_dc_1", "f_dc_2"};
static const char *const tail[] = {"opacity", "scale_0", "scale_1", "scale_2",
                                   "rot_0",   "rot_1",   "rot_2",   "rot_3"};

/* splitmix64: the f_rest values, in [-0.05, 0.05) */
static float rest_value(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return (float)((double)(z >> 11) / 9007199254740992.0 * 0.1 - 0.05);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s IN.splat OUT.ply COPIES\n", argv[0]);
        return 2;
    }
    int copies = atoi(argv[3]), rc = 1;
    FILE *in = fopen(argv[1], "rb"), *out = NULL;
    unsigned char *raw = NULL;
    float *row = NULL;
    long size = 0;
    if (!in || fseek(in, 0, SEEK_END) || (size = ftell(in)) <= 0 || size % 32 || copies < 1) {
        fprintf(stderr, "%s: not a .splat file, or COPIES < 1\n", argv[1]);
        goto done;
    }
    rewind(in);
    size_t n = (size_t)size / 32;
    if (!(raw = malloc((size_t)size)) || fread(raw, 1, (size_t)size, in) != (size_t)size ||
        !(row = malloc(PROPS * sizeof *row))) {
        fprintf(stderr, "%s: cannot read\n", argv[1]);
        goto done;
    }
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t i = 0; i < n; i++)
        for (int a = 0; a < 3; a++) {
            float v;
            memcpy(&v, raw + i * 32 + 4 * a, 4);
            lo[a] = fminf(lo[a], v);
            hi[a] = fmaxf(hi[a], v);
        }
    if (!(out = fopen(argv[2], "wb"))) {
        fprintf(stderr, "%s: cannot create\n", argv[2]);
        goto done;
    }
    fprintf(out, "ply\nformat binary_little_endian 1.0\nelement vertex %zu\n", n * (size_t)copies);
    for (int k = 0; k < 9; k++)
        fprintf(out, "property float %s\n", head[k]);
    for (int k = 0; k < 45; k++)
        fprintf(out, "property float f_rest_%d\n", k);
    for (int k = 0; k < 8; k++)
        fprintf(out, "property float %s\n", tail[k]);
    fprintf(out, "end_header\n");
    int side = 1;
    while (side * side * side < copies)
        side++;
    uint64_t seed = 1;
    for (int c = 0; c < copies; c++) {
        int cell[3] = {c % side, (c / side) % side, c / (side * side)};
        for (size_t i = 0; i < n; i++) {
            const unsigned char *s = raw + i * 32;
            float p[3], sc[3];
            memcpy(p, s, 12);
            memcpy(sc, s + 12, 12);
            memset(row, 0, PROPS * sizeof *row);
            for (int a = 0; a < 3; a++) {
                row[a] = p[a] + (float)cell[a] * (hi[a] - lo[a]);
                row[6 + a] = (float)((s[24 + a] / 255.0 - 0.5) / SH_C0);
                row[55 + a] = logf(fmaxf(sc[a], 1e-8f));
            }
            for (int k = 0; k < 45; k++)
                row[9 + k] = rest_value(&seed);
            double alpha = fmin(fmax(s[27] / 255.0, 1e-4), 1 - 1e-4);
            row[54] = (float)log(alpha / (1 - alpha));
            for (int k = 0; k < 4; k++)
                row[58 + k] = (float)((s[28 + k] - 128) / 128.0);
            if (fwrite(row, sizeof *row, PROPS, out) != PROPS) {
                fprintf(stderr, "%s: cannot write\n", argv[2]);
                goto done;
            }
        }
    }
    rc = 0;
done:
    if (out && fclose(out) && !rc) {
        fprintf(stderr, "%s: cannot write\n", argv[2]);
        rc = 1;
    }
    if (in)
        fclose(in);
    free(raw);
    free(row);
    return rc;
}
