/* params.c - documented defaults of the sort parameters. */
#include "core/params.h"

#include <string.h>

void cuplas_sort_params_default(cuplas_sort_params *p)
{
    memset(p, 0, sizeof *p);
    p->seed = 1337;
    p->permuter = CUPLAS_PERMUTER_FEISTEL;
    p->shuffle = true;
    p->start_radius = 0.0;
    p->radius_decay = 0.95;
    p->min_blur_radius = 1;
    p->min_block_size = 4;
    p->blur_passes = 1;
    p->border_x = CUPLAS_BORDER_CIRCULAR;
    p->border_y = CUPLAS_BORDER_REFLECT;
    p->improvement_break = 1e-3;
    p->min_configs = 2;
    p->max_configs = 4;
    p->max_passes = 2;
}

const char *cuplas_permuter_name(cuplas_permuter p)
{
    return p == CUPLAS_PERMUTER_LCG ? "lcg" : "feistel";
}

const char *cuplas_border_name(cuplas_border b)
{
    switch (b) {
    case CUPLAS_BORDER_CIRCULAR: return "circular";
    case CUPLAS_BORDER_REFLECT: return "reflect";
    case CUPLAS_BORDER_REPLICATE: return "replicate";
    }
    return "?";
}
