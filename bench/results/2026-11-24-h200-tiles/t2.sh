#!/bin/bash
# t2: tile kernel v2 (row potentials in lanes, one-redux arg-min): parity,
# racecheck; GROUP_MIN_BLOCKS 4 (bench_sort) against 2 (bench_sort_b2);
# ncu of one k = 16 level kernel.
cd .dev && tar xJf libs.tar.xz && cd ..; export LD_LIBRARY_PATH=$PWD/.dev/lib
B=$PWD/.dev/bin P=$PWD/.dev/peer-inputs.h5; J=$OUT/t2.jsonl; : > $J
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
CUPLAS_TEST_FILTER=test_gpu_pass_parity $B/test_gpu > $OUT/parity-pass.txt 2>&1; echo "parity pass rc=$?"
CUPLAS_TEST_QUICK=1 CUPLAS_TEST_FILTER=test_gpu_sort_parity_groups timeout 200 $B/test_gpu > $OUT/parity-groups.txt 2>&1; echo "parity groups rc=$?"
CUPLAS_TEST_FILTER=test_gpu_pass_parity timeout 120 compute-sanitizer --tool racecheck --racecheck-report hazard $B/test_gpu > $OUT/racecheck.txt 2>&1; echo "racecheck rc=$?"; tail -1 $OUT/racecheck.txt
for bin in bench_sort bench_sort_b2; do
for v in "k16-020=group_size=16,improvement_break=1e-3,max_passes=2" "k8-020=group_size=8,improvement_break=1e-3,max_passes=2" \
         "k16-p4=group_size=16,max_passes=4"; do
    label=${v%%=*}; sets=(); IFS=, read -ra kv <<< "${v#*=}"
    for s in "${kv[@]}"; do sets+=(--set "sort.$s"); done
    timeout 150 $B/$bin --runs 5 "${sets[@]}" $P:/colors_1024 normal:1024x1024x16 2>&1 |
        grep '^{' | sed "s/^{/{\"bin\":\"$bin\",\"label\":\"$label\",/" >> $J
done; done
timeout 200 ncu --kernel-name regex:group_level_kernel --launch-skip 60 --launch-count 1 \
    --section SpeedOfLight --section Occupancy --section WarpStateStats --section SchedulerStats --section LaunchStats \
    $B/bench_sort --runs 1 --set sort.group_size=16 --set sort.improvement_break=1e-3 --set sort.max_passes=2 $P:/colors_1024 > $OUT/ncu.txt 2>&1
grep -E "Duration|Achieved Occupancy|Theoretical Occupancy|Registers Per|Stall|Issued Warp|No Eligible|Block Limit|Compute \(SM\) Th|Memory Th|Warp Cycles Per Issued" $OUT/ncu.txt | head -30
python3 - $J <<'PY'
import json, sys
for l in open(sys.argv[1]):
    d = json.loads(l)
    print("%-13s %-8s %-22s %8.1f ms  AND %.4f  passes %d  us/pass %.1f" % (d["bin"], d["label"], d["case"][-22:], d["device_ms"], d["and_after"], d["passes"], 1000*d["device_ms"]/d["passes"]))
PY
