/*
 * transform.h - what the sort sees of an attribute: activations, unit
 * length, standardisation per channel or per attribute group, weights.
 * Pure math on the sort's feature copy (N x C doubles): the input's own
 * values, and so `sorted`, are never touched.
 *
 * Why: 3DGS attributes are stored pre-activation. A log-scale of -8 and
 * -6 are both "tiny", an opacity logit of 6 and 9 both "opaque"; sorting
 * by raw values spends the grid's smoothness on differences nobody sees.
 * SOG sorts exp(scale) and sigmoid(opacity), with x, y, z standardised
 * together so that the scene keeps its proportions (one mean and one
 * standard deviation for the three axes), and gsplat sorts raw values.
 *
 * Order of application, per row: activations (exp, sigmoid), then unit
 * length (the columns of `unit` as one vector, e.g. a quaternion rot_0..3;
 * a zero vector stays zero), then the sign (the columns of `sign` as one
 * vector, negated when its first largest component by magnitude is
 * negative: q and -q are one rotation, and PlayCanvas SOG stores that
 * form), then normalisation: each group of columns
 * shares one shift and scale (standardize: the mean and population
 * standard deviation of all the group's values; minmax: the group's min
 * and max), a column in no group is its own group; a constant group maps
 * to 0. Last, column c is multiplied by weights[c].
 */
#ifndef CUPLAS_CORE_TRANSFORM_H
#define CUPLAS_CORE_TRANSFORM_H

#include <stdint.h>

#include "core/quantize.h"
#include "util/pool.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { CUPLAS_ACT_NONE = 0, CUPLAS_ACT_EXP = 1, CUPLAS_ACT_SIGMOID = 2 };

typedef struct cuplas_transform {
    const unsigned char *act;  /* per column CUPLAS_ACT_*; NULL = none        */
    const unsigned char *unit; /* per column: 1 = part of the unit vector;
                                  NULL = none                                 */
    const int *group;          /* per column: group id >= 0 shared by columns
                                  normalised together, -1 = alone; NULL = all
                                  alone (then identical to
                                  cuplas_features_normalize)                  */
    cuplas_norm norm;
    const double *weights;     /* per column, NULL = all 1                    */
    const unsigned char *sign; /* per column: 1 = part of the vector whose
                                  sign is made canonical; NULL = none        */
} cuplas_transform;

/* Apply t to x (N x C, row-major) in place. 0 or CUPLAS_ERR_NOMEM. Results
 * do not depend on the pool's thread count. */
int cuplas_transform_apply(double *x, int64_t N, int C, const cuplas_transform *t,
                           cuplas_pool *pool);

#ifdef __cplusplus
}
#endif
#endif
