#!/bin/bash
# t8: the wide row's neighbours (group_size 16, max_passes 1, ib 1e-3 plus
# one change each) on wide grids; and the tile kernel at 3 blocks per SM
# (bench_sort_b3: GROUP_MIN_BLOCKS=3) against 4.
cd .dev && tar xJf libs.tar.xz && cd ..; export LD_LIBRARY_PATH=$PWD/.dev/lib
B=$PWD/.dev/bin; J=$OUT/t8.jsonl; : > $J
run() { # bin label runs cases... -- settings
    local bin=$1 label=$2 runs=$3; shift 3; local cases=(); while [ "$1" != "--" ]; do cases+=("$1"); shift; done; shift
    local sets=(); for s in "$@"; do sets+=(--set "sort.$s"); done
    timeout 170 $B/$bin --runs $runs "${sets[@]}" "${cases[@]}" 2>&1 |
        grep '^{' | sed "s/^{/{\"bin\":\"$bin\",\"label\":\"$label\",/" >> $J
}
N8=normal:1024x1024x8 N16=normal:1024x1024x16 N32=normal:1024x1024x32 B16=normal:2048x2048x16
W="group_size=16 improvement_break=1e-3 max_passes=1"
run bench_sort    wide  5 $N8 $N16 $N32 --
run bench_sort_b3 wide  5 $N8 $N16 $N32 --
run bench_sort    d94   5 $N8 $N16 $N32 -- $W radius_decay=0.94
run bench_sort    d93   5 $N8 $N16 $N32 -- $W radius_decay=0.93
run bench_sort    d92   5 $N16 -- $W radius_decay=0.92
run bench_sort    c13   5 $N16 -- $W min_configs=1 max_configs=3
run bench_sort    mc2   5 $N16 -- $W max_configs=2
run bench_sort    ib2   5 $N16 -- group_size=16 improvement_break=1e-2 max_passes=1
run bench_sort    d93   3 $B16 -- $W radius_decay=0.93
python3 - $J <<'PY'
import json, sys
for l in open(sys.argv[1]):
    d = json.loads(l)
    print("%-13s %-5s %-20s k=%-2d %8.1f ms  AND %.4f  passes %4d levels %3d" % (d["bin"], d["label"], d["case"][-20:], d["group"], d["device_ms"], d["and_after"], d["passes"], d["levels"]))
PY
