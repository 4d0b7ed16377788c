#!/bin/bash
# t4: the tile kernel as committed (beef3f6, no column reduction): larger
# groups on wide grids (C = 8, 16, 32) against the 4-cell default, for a
# `default` row for grids of more than 4 channels.
cd .dev && tar xJf libs.tar.xz && cd ..; export LD_LIBRARY_PATH=$PWD/.dev/lib
B=$PWD/.dev/bin; J=$OUT/t4.jsonl; : > $J
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
run() { # label runs cases... -- settings
    local label=$1 runs=$2; shift 2; local cases=(); while [ "$1" != "--" ]; do cases+=("$1"); shift; done; shift
    local sets=(); for s in "$@"; do sets+=(--set "sort.$s"); done
    timeout 170 $B/bench_sort --runs $runs "${sets[@]}" "${cases[@]}" 2>&1 |
        grep '^{' | sed "s/^{/{\"label\":\"$label\",/" >> $J
}
N8=normal:1024x1024x8 N16=normal:1024x1024x16 N32=normal:1024x1024x32 B16=normal:2048x2048x16
I3="improvement_break=1e-3"
run k4      5 $N8 $N16 $N32 --
run k16-p1  5 $N8 $N16 $N32 -- group_size=16 $I3 max_passes=1
run k16-020 5 $N8 $N16 $N32 -- group_size=16 $I3 max_passes=2
run k8-020  5 $N8 $N16 $N32 -- group_size=8 $I3 max_passes=2
run k8-p1   5 $N16 -- group_size=8 $I3 max_passes=1
run k16-p1-ib4 5 $N16 -- group_size=16 improvement_break=1e-4 max_passes=1
run k4      3 $B16 --
run k16-p1  3 $B16 -- group_size=16 $I3 max_passes=1
run k16-020 3 $B16 -- group_size=16 $I3 max_passes=2
python3 - $J <<'PY'
import json, sys
for l in open(sys.argv[1]):
    d = json.loads(l)
    print("%-10s %-20s %9.1f ms  AND %.4f  passes %5d  us/pass %6.1f  B/cell %.1f" % (d["label"], d["case"][-20:], d["device_ms"], d["and_after"], d["passes"], 1000*d["device_ms"]/max(d["passes"],1), d["bytes_per_cell"]))
PY
