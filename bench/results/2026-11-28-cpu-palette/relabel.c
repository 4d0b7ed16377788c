/* shN_labels.webp re-encoded as written, and with the palette's entries
 * renumbered by a random permutation (what an arbitrary numbering gives),
 * and renumbered by first use in raster order. WebP lossless method 6. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "eval/codec.h"
#include "eval/schemes.h"
static uint64_t s = 12345;
static uint64_t rnd(void) { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return s; }
static long enc(const cuplas_eval_image *im) {
    cuplas_codec_opts o; cuplas_codec_opts_default(&o); o.webp_method = 6; o.threads = 2;
    cuplas_buf b = {0}; cuplas_error e; cuplas_error_clear(&e);
    if (cuplas_image_bytes(im, CUPLAS_CODEC_WEBP, &o, NULL, &b, &e)) { fprintf(stderr, "%s\n", e.msg); exit(1); }
    long n = (long)b.size; free(b.data); return n;
}
int main(int argc, char **argv) {
    FILE *f = fopen(argv[1], "rb"); fseek(f, 0, SEEK_END); long n = ftell(f); fseek(f, 0, SEEK_SET);
    uint8_t *d = malloc(n); fread(d, 1, n, f); fclose(f);
    int K = atoi(argv[2]); long count = atol(argv[3]);
    cuplas_eval_image im = {0}; cuplas_error e; cuplas_error_clear(&e);
    if (cuplas_image_decode(CUPLAS_CODEC_WEBP, d, n, 4, &im, &e)) { fprintf(stderr, "%s\n", e.msg); return 1; }
    snprintf(im.name, sizeof im.name, "shN_labels");
    printf("file %ld bytes; re-encoded %ld\n", n, enc(&im));
    int *perm = malloc(K * sizeof *perm), *first = malloc(K * sizeof *first);
    for (int i = 0; i < K; i++) perm[i] = i, first[i] = -1;
    for (int i = K - 1; i > 0; i--) { int j = (int)(rnd() % (uint64_t)(i + 1)); int t = perm[i]; perm[i] = perm[j]; perm[j] = t; }
    uint8_t *orig = malloc((size_t)im.W * im.H * 4); memcpy(orig, im.px, (size_t)im.W * im.H * 4);
    for (long i = 0; i < count; i++) { int l = orig[i*4] | orig[i*4+1] << 8; l = perm[l]; im.px[i*4] = l & 255; im.px[i*4+1] = l >> 8; }
    printf("random numbering %ld\n", enc(&im));
    int next = 0;
    for (long i = 0; i < count; i++) { int l = orig[i*4] | orig[i*4+1] << 8; if (first[l] < 0) first[l] = next++; l = first[l]; im.px[i*4] = l & 255; im.px[i*4+1] = l >> 8; }
    printf("first-use numbering %ld (entries used %d)\n", enc(&im), next);
    return 0;
}
