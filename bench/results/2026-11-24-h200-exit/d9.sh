# d9: racecheck and synccheck of the 6-cell polish kernel (d8's racecheck
# of `best` ran past the call's limit), on default's schedule with
# sort.polish_cells 6, both layouts.
cd .dev && tar xJf libs.tar.xz && cd ..
export LD_LIBRARY_PATH=$PWD/.dev/lib
B=$PWD/.dev/bin; CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in racecheck synccheck; do
  for c in "colors:48x40" "normal:40x36x16"; do
    f=$OUT/d9-$tool-${c/:/_}.txt
    timeout 100 $CS --tool $tool --error-exitcode 9 $B/bench_sort --runs 1 --set sort.polish_cells=6 $c > $f 2>&1
    echo "$tool | $c polish_cells 6 | rc $? | $(grep -h "ERROR SUMMARY\|RACECHECK SUMMARY" $f | tail -1)"
  done
done
