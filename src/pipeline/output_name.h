/*
 * output_name.h - where a job's result goes: output.dir joined with
 * output.name's template, and the sorted PLY's name beside it.
 *
 * Placeholders: {stem} (the input's file name up to its last dot), {file}
 * (the whole name), {dataset} (without its leading '/', other '/' as '_'),
 * {parent} (the input's folder's own name, "." for a bare name) and
 * {relpath} (the input's path from the inputs' common folder, without its
 * extension, '/' as '_'). The config loader has already refused unknown
 * placeholders and names that climb out of output.dir.
 */
#ifndef CUPLAS_PIPELINE_OUTPUT_NAME_H
#define CUPLAS_PIPELINE_OUTPUT_NAME_H

/* dir + "/" + tmpl filled in for `file`'s `dataset`; file + rel_at is
 * where {relpath} starts (the length of the common folder prefix, 0 for
 * none). dir NULL or "" adds nothing. Malloc'd; NULL when out of memory. */
char *cuplas_output_path(const char *dir, const char *tmpl, const char *file,
                         const char *dataset, int rel_at);

/* "dir/x.h5" -> "dir/x" + suffix, malloc'd (NULL: out of memory): the
 * names of a result's preview (".png") and eval images (".eval"). */
char *cuplas_output_beside(const char *output, const char *suffix);

/* A result's sorted-PLY twin: its name with .h5 or .hdf5 replaced by
 * .ply (or .ply added). Malloc'd; NULL when out of memory. */
char *cuplas_output_ply_path(const char *output);

#endif
