/* Morton-constrained greedy layout: raster order; at each pixel pick, from a
 * pool of the next K unplaced Morton items, the one closest (weighted
 * standardised features) to the left and up neighbours. Oldest item forced
 * when its age reaches A. usage: win K A WPOS WUP out.ply [wdc wsc wrot] */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
#define W 338
#define D 13
int main(int argc, char **argv) {
    int K = atoi(argv[1]), A = atoi(argv[2]); double wp = atof(argv[3]), wup = atof(argv[4]);
    double wdc = argc > 6 ? atof(argv[6]) : 1, wsc = argc > 7 ? atof(argv[7]) : 1.5, wr = argc > 8 ? atof(argv[8]) : 3;
    FILE *f = fopen("items.bin", "rb"); fseek(f, 0, SEEK_END); long n = ftell(f) / 56; fseek(f, 0, SEEK_SET);
    float *raw = malloc(n * 56); fread(raw, 56, n, f); fclose(f);
    double *F = malloc(sizeof(double) * n * D);
    /* features: x y z | dc0-2 | s0-2 | r0-3 (unit) ; groups standardised jointly */
    for (long i = 0; i < n; i++) {
        float *r = raw + i * 14; double *o = F + i * D;
        o[0] = r[0]; o[1] = r[1]; o[2] = r[2]; o[3] = r[3]; o[4] = r[4]; o[5] = r[5];
        o[6] = r[7]; o[7] = r[8]; o[8] = r[9];
        double q = sqrt(r[10]*r[10] + r[11]*r[11] + r[12]*r[12] + r[13]*r[13]); if (q == 0) q = 1;
        for (int k = 0; k < 4; k++) o[9 + k] = r[10 + k] / q;
    }
    int g0[4] = {0, 3, 6, 9}, g1[4] = {3, 6, 9, 13}; double gw[4] = {wp, wdc, wsc, wr};
    for (int g = 0; g < 4; g++) {
        double s = 0, s2 = 0; long c = 0;
        for (long i = 0; i < n; i++) for (int k = g0[g]; k < g1[g]; k++) { s += F[i*D+k]; s2 += F[i*D+k]*F[i*D+k]; c++; }
        double m = s / c, sd = sqrt(s2 / c - m * m);
        for (long i = 0; i < n; i++) for (int k = g0[g]; k < g1[g]; k++) F[i*D+k] = (F[i*D+k] - m) / sd * gw[g];
    }
    long *lay = malloc(sizeof(long) * n), *pool = malloc(sizeof(long) * (K + 1)), *age = malloc(sizeof(long) * (K + 1));
    int np = 0; long next = 0;
    for (long p = 0; p < n; p++) {
        while (np < K && next < n) { pool[np] = next++; age[np] = p; np++; }
        int best = 0;
        if (p - age[0] < A) {
            double bc = INFINITY;
            for (int j = 0; j < np; j++) {
                double c = 0; double *a = F + pool[j] * D;
                if (p % W) { double *b = F + lay[p-1] * D; for (int k = 0; k < D; k++) { double d = a[k]-b[k]; c += d*d; } }
                if (p >= W && wup > 0) { double *b = F + lay[p-W] * D; double cu = 0; for (int k = 0; k < D; k++) { double d = a[k]-b[k]; cu += d*d; } c += wup * cu; }
                if (c < bc) { bc = c; best = j; }
            }
        }
        lay[p] = pool[best];
        memmove(pool + best, pool + best + 1, (np - best - 1) * sizeof(long));
        memmove(age + best, age + best + 1, (np - best - 1) * sizeof(long));
        np--;
    }
    static const char *nm[] = {"x","y","z","f_dc_0","f_dc_1","f_dc_2","opacity","scale_0","scale_1","scale_2","rot_0","rot_1","rot_2","rot_3"};
    FILE *o = fopen(argv[5], "wb");
    fprintf(o, "ply\nformat binary_little_endian 1.0\nelement vertex %ld\n", n);
    for (int k = 0; k < 14; k++) fprintf(o, "property float %s\n", nm[k]);
    fprintf(o, "end_header\n");
    for (long p = 0; p < n; p++) fwrite(raw + lay[p] * 14, 56, 1, o);
    fclose(o);
    return 0;
}
