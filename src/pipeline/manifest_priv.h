/*
 * manifest_priv.h - what manifest.c (building, writing) shares with
 * manifest_read.c (reading back): not part of manifest.h's interface.
 */
#ifndef CUPLAS_PIPELINE_MANIFEST_PRIV_H
#define CUPLAS_PIPELINE_MANIFEST_PRIV_H

#include "pipeline/manifest.h"

/* The keys of the manifest's "slurm" object, in cuplas_manifest.slurm's
 * order. */
extern const char *const cuplas_manifest__slurm_keys[5];

/* *dst = strdup(s) (NULL for NULL); -1 only when a non-NULL s cannot be
 * copied. */
int cuplas_manifest__dup(char **dst, const char *s);

/* A zeroed entry appended to m (AND NaN), or NULL when out of memory. */
cuplas_manifest_entry *cuplas_manifest__new_entry(cuplas_manifest *m);

#endif
