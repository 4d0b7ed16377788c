# d8: compute-sanitizer on the polish kernels (memcheck, racecheck,
# synccheck), through bench_sort --runs 1 on small grids: 2x2 windows
# (default) and 2x3 / 3x2 (best, and polish_cells 6), both layouts.
cd .dev && tar xJf libs.tar.xz && cd ..
export LD_LIBRARY_PATH=$PWD/.dev/lib
B=$PWD/.dev/bin; CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in memcheck racecheck synccheck; do
  for c in "colors:96x80" "normal:64x48x16" "colors:64x64 --set sort.preset=best" "normal:40x36x16 --set sort.polish_cells=6" "colors:3x50 --set sort.polish_cells=6"; do
    set -- $c
    $CS --tool $tool --error-exitcode 9 $B/bench_sort --runs 1 "${@:2}" $1 > $OUT/d8-$tool-$(echo $c | tr ' :=/' '____').txt 2>&1
    echo "$tool | $c | rc $? | $(grep -h "ERROR SUMMARY\|RACECHECK SUMMARY" $OUT/d8-$tool-$(echo $c | tr ' :=/' '____').txt | tail -1)"
  done
done
