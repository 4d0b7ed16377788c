/* Simulated annealing of a sorted grid's weighted AND (L2 distance of the
 * sog.yaml features between 4-neighbours), by swaps of cells at most R
 * apart. usage: sa IN.bin SWEEPS R T0 T1 out.ply   (IN: side^2 x 14 float, raster) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#define S 338
#define D 13
static double F[S * S][D];
static int lay[S * S];
static uint64_t rng = 88172645463325252ull;
static inline uint64_t xr(void) { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return rng; }
static inline double un(void) { return (xr() >> 11) * (1.0 / 9007199254740992.0); }
static inline double dist(int a, int b) { double s = 0; for (int k = 0; k < D; k++) { double d = F[a][k] - F[b][k]; s += d * d; } return sqrt(s); }
/* cost of the edges at cell p holding item it */
static double cell_cost(int p, int it, int skip) {
    int y = p / S, x = p % S; double c = 0;
    if (x > 0 && p - 1 != skip) c += dist(it, lay[p - 1]);
    if (x < S - 1 && p + 1 != skip) c += dist(it, lay[p + 1]);
    if (y > 0 && p - S != skip) c += dist(it, lay[p - S]);
    if (y < S - 1 && p + S != skip) c += dist(it, lay[p + S]);
    return c;
}
static double total(void) { double c = 0; for (int p = 0; p < S * S; p++) { if (p % S < S - 1) c += dist(lay[p], lay[p + 1]); if (p / S < S - 1) c += dist(lay[p], lay[p + S]); } return c; }
int main(int argc, char **argv) {
    double sweeps = atof(argv[2]); int R = atoi(argv[3]); double T0 = atof(argv[4]), T1 = atof(argv[5]);
    double wts[4] = {argc > 7 ? atof(argv[7]) : 8, 1, 1.5, 3};
    int n = S * S; float *raw = malloc(sizeof(float) * 14 * n);
    FILE *f = fopen(argv[1], "rb"); if (fread(raw, 56, n, f) != (size_t)n) return 1; fclose(f);
    for (int i = 0; i < n; i++) {
        float *r = raw + 14 * i; double *o = F[i];
        o[0] = r[0]; o[1] = r[1]; o[2] = r[2]; o[3] = r[3]; o[4] = r[4]; o[5] = r[5];
        o[6] = r[7]; o[7] = r[8]; o[8] = r[9];
        double q = sqrt(r[10]*r[10] + r[11]*r[11] + r[12]*r[12] + r[13]*r[13]); if (q == 0) q = 1;
        for (int k = 0; k < 4; k++) o[9 + k] = r[10 + k] / q;
        lay[i] = i;
    }
    int g0[4] = {0, 3, 6, 9}, g1[4] = {3, 6, 9, 13};
    for (int g = 0; g < 4; g++) {
        double s = 0, s2 = 0; long c = 0;
        for (int i = 0; i < n; i++) for (int k = g0[g]; k < g1[g]; k++) { s += F[i][k]; s2 += F[i][k] * F[i][k]; c++; }
        double m = s / c, sd = sqrt(s2 / c - m * m);
        for (int i = 0; i < n; i++) for (int k = g0[g]; k < g1[g]; k++) F[i][k] = (F[i][k] - m) / sd * wts[g];
    }
    double c0 = total(); long moves = (long)(sweeps * n), acc = 0;
    fprintf(stderr, "AND-sum before %.1f (mean edge %.4f)\n", c0, c0 / (2.0 * S * (S - 1)));
    for (long m = 0; m < moves; m++) {
        double T = T0 * pow(T1 / T0, (double)m / moves);
        int p = xr() % n, y = p / S, x = p % S;
        int dy = (int)(xr() % (2 * R + 1)) - R, dx = (int)(xr() % (2 * R + 1)) - R;
        int y2 = y + dy, x2 = x + dx;
        if ((dy == 0 && dx == 0) || y2 < 0 || y2 >= S || x2 < 0 || x2 >= S) continue;
        int q = y2 * S + x2, a = lay[p], b = lay[q];
        double before = cell_cost(p, a, q) + cell_cost(q, b, p);
        double after = cell_cost(p, b, q) + cell_cost(q, a, p);
        double d = after - before;
        if (d <= 0 || un() < exp(-d / T)) { lay[p] = b; lay[q] = a; acc++; }
    }
    double c1 = total();
    fprintf(stderr, "AND-sum after %.1f (mean edge %.4f, %.2f%%), accepted %ld of %ld\n", c1, c1 / (2.0 * S * (S - 1)), 100 * (c1 / c0 - 1), acc, moves);
    static const char *nm[] = {"x","y","z","f_dc_0","f_dc_1","f_dc_2","opacity","scale_0","scale_1","scale_2","rot_0","rot_1","rot_2","rot_3"};
    FILE *o = fopen(argv[6], "wb");
    fprintf(o, "ply\nformat binary_little_endian 1.0\nelement vertex %d\n", n);
    for (int k = 0; k < 14; k++) fprintf(o, "property float %s\n", nm[k]);
    fprintf(o, "end_header\n");
    for (int p = 0; p < n; p++) fwrite(raw + 14 * lay[p], 56, 1, o);
    fclose(o);
    return 0;
}
