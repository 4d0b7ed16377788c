#!/bin/bash
# t1: the warp-tile group kernel (assign_group_gpu.cu): parity, racecheck,
# memcheck, then k = 8 / 16 schedules against the 4-cell default.
cd .dev && tar xJf libs.tar.xz && cd ..; export LD_LIBRARY_PATH=$PWD/.dev/lib
B=$PWD/.dev/bin P=$PWD/.dev/peer-inputs.h5; J=$OUT/t1.jsonl; : > $J
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
CUPLAS_TEST_FILTER=test_gpu_pass_parity $B/test_gpu > $OUT/parity-pass.txt 2>&1; echo "parity pass rc=$?"
CUPLAS_TEST_QUICK=1 CUPLAS_TEST_FILTER=test_gpu_sort_parity_groups timeout 200 $B/test_gpu > $OUT/parity-groups.txt 2>&1; echo "parity groups rc=$?"
CUPLAS_TEST_FILTER=test_gpu_pass_parity timeout 120 compute-sanitizer --tool racecheck --racecheck-report hazard $B/test_gpu > $OUT/racecheck.txt 2>&1; echo "racecheck rc=$?"; tail -2 $OUT/racecheck.txt
CUPLAS_TEST_FILTER=test_gpu_pass_parity timeout 120 compute-sanitizer --tool memcheck $B/test_gpu > $OUT/memcheck.txt 2>&1; echo "memcheck rc=$?"; tail -2 $OUT/memcheck.txt
for v in "k4-default=" "k16-020=group_size=16,improvement_break=1e-3,max_passes=2" \
         "k16-p4=group_size=16,max_passes=4" "k16-default=group_size=16" \
         "k8-020=group_size=8,improvement_break=1e-3,max_passes=2" "k8-default=group_size=8"; do
    label=${v%%=*}; sets=(); IFS=, read -ra kv <<< "${v#*=}"
    for s in "${kv[@]}"; do sets+=(--set "sort.$s"); done
    timeout 150 $B/bench_sort --runs 5 "${sets[@]}" $P:/colors_1024 normal:1024x1024x16 2>&1 |
        grep '^{' | sed "s/^{/{\"label\":\"$label\",/" >> $J
done
python3 - $J <<'PY'
import json, sys
for l in open(sys.argv[1]):
    d = json.loads(l)
    print("%-12s %-28s %9.1f ms  AND %.4f  passes %d" % (d["label"], d["case"][-28:], d["device_ms"], d["and_after"], d["passes"]))
PY
