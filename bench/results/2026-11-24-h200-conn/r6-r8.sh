# r6-r8 (as run; the loops are r7's): workshop builds of bench_sort with
# -DCUPLAS_EXP_HYBRID=N (CPPFLAGS and NVCCFLAGS) on a copy of 39a49b2 whose
# cuplas_level_params_make (core/level.h) gave some levels of a 4-cell sort
# 16-cell groups:
#   h1: the grid-wide levels (blocks > local_cells), 2 passes, ib 1e-3
#   h2: the block-local-sized levels, 2 passes, ib 1e-3
#   h4: the block-local-sized levels, 1 pass, ib 1e-2
#   h5: the block-local-sized levels, 1 pass, ib 1e-3
#   h6: the block-local-sized levels, 1 pass, the preset's ib (what 0.6.0 ships as
#       sort.local_group_size 16 + sort.local_passes 1)
# each with --set overrides for the rest (labels: c3 = max_configs 3, d94 = radius_decay
# 0.94, m1 = min_configs 1, p8 / p10 = max_passes, i4 = improvement_break 1e-4).
run() { lab=$1 bin=$2; shift 2
  for s in 1337 1 2; do $B/$bin --runs 5 --set sort.seed=$s "$@" .dev/peer-inputs.h5:/colors_1024 2>/dev/null | sed "s/^{/{\"label\":\"$lab\",\"seed\":$s,/" >> $J; done
  $B/$bin --runs 5 "$@" colors:2048x2048 2>/dev/null | sed "s/^{/{\"label\":\"$lab\",\"seed\":1337,/" >> $J; }
