#!/bin/bash
# t3: lap.h's column-reduction start (CPU and tile): parity, racecheck,
# then k = 8 / 16 schedules for the presets (1024^2 x 3, 1024^2 x 16,
# 2048^2 x 3).
cd .dev && tar xJf libs.tar.xz && cd ..; export LD_LIBRARY_PATH=$PWD/.dev/lib
B=$PWD/.dev/bin P=$PWD/.dev/peer-inputs.h5; J=$OUT/t3.jsonl; : > $J
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
CUPLAS_TEST_FILTER=test_gpu_pass_parity $B/test_gpu > $OUT/parity-pass.txt 2>&1; echo "parity pass rc=$?"
CUPLAS_TEST_QUICK=1 CUPLAS_TEST_FILTER=test_gpu_sort_parity_groups timeout 200 $B/test_gpu > $OUT/parity-groups.txt 2>&1; echo "parity groups rc=$?"
CUPLAS_TEST_FILTER=test_gpu_pass_parity timeout 120 compute-sanitizer --tool racecheck --racecheck-report hazard $B/test_gpu > $OUT/racecheck.txt 2>&1; echo "racecheck rc=$?"; tail -1 $OUT/racecheck.txt
run() { # label runs cases... -- settings
    local label=$1 runs=$2; shift 2; local cases=(); while [ "$1" != "--" ]; do cases+=("$1"); shift; done; shift
    local sets=(); for s in "$@"; do sets+=(--set "sort.$s"); done
    timeout 170 $B/bench_sort --runs $runs "${sets[@]}" "${cases[@]}" 2>&1 |
        grep '^{' | sed "s/^{/{\"label\":\"$label\",/" >> $J
}
C3=$P:/colors_1024 C16=normal:1024x1024x16 G2=colors:2048x2048
I3="improvement_break=1e-3"
run k16-020 5 $C3 $C16 -- group_size=16 $I3 max_passes=2
run k8-020  5 $C3 $C16 -- group_size=8 $I3 max_passes=2
run k8-p3   5 $C3 $C16 -- group_size=8 $I3 max_passes=3
run k8-p4   5 $C16 -- group_size=8 $I3 max_passes=4
run k8-c13  5 $C16 -- group_size=8 $I3 max_passes=2 min_configs=1 max_configs=3
run k16-p1  5 $C3 $C16 -- group_size=16 $I3 max_passes=1
run k4      5 $G2 -- 
run k8-020  3 $G2 -- group_size=8 $I3 max_passes=2
run k16-020 3 $G2 -- group_size=16 $I3 max_passes=2
run k16-d99 3 $C3 -- group_size=16 $I3 max_passes=2 radius_decay=0.99
run k16-d98p4 3 $C3 -- group_size=16 max_passes=4 radius_decay=0.98
run k16-best 1 $C3 -- preset=best group_size=16
python3 - $J <<'PY'
import json, sys
for l in open(sys.argv[1]):
    d = json.loads(l)
    print("%-10s %-20s %9.1f ms  AND %.4f  passes %5d  us/pass %6.1f" % (d["label"], d["case"][-20:], d["device_ms"], d["and_after"], d["passes"], 1000*d["device_ms"]/max(d["passes"],1)))
PY
