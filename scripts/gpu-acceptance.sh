#!/bin/bash
# gpu-acceptance.sh - the GPU plan of issue 3 in one go, for a device run:
# parity suite (incl. 2048^2 x 16), compute-sanitizer memcheck + racecheck,
# and the benchmark (JSON lines). Run from the repo root after
# scripts/device-bundle.sh; results land in $OUT (or ./gpu-results).
set -u
OUT=${OUT:-gpu-results}; mkdir -p "$OUT"
export LD_LIBRARY_PATH=$PWD/.dev/lib
B=.dev/bin; P=.dev/peer-inputs.h5
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader > "$OUT/gpu.txt"
( time $B/test_gpu ) > "$OUT/test_gpu.log" 2>&1; echo "test_gpu rc=$?" | tee -a "$OUT/summary.txt"
for tool in memcheck $( [ -n "${ACCEPT_LIGHT:-}" ] || echo racecheck ); do
    CUPLAS_TEST_QUICK=1 timeout 240 compute-sanitizer --tool $tool --error-exitcode 9 $B/test_gpu \
        > "$OUT/sanitizer-$tool.log" 2>&1
    echo "$tool rc=$? $(grep -h 'ERROR SUMMARY' "$OUT/sanitizer-$tool.log" | tail -1)" | tee -a "$OUT/summary.txt"
done
CASES="$P:/colors_256 $P:/colors_512 $P:/colors_1024 $P:/colors_2048 colors:4096x4096
normal:256x256x16 normal:512x512x16 normal:1024x1024x16 normal:2048x2048x16 normal:4096x4096x16
colors:1000x1000 colors:1337x1337 colors:1024x512 colors:512x1024 normal:1024x2048x16"
$B/bench_sort --runs 5 $CASES > "$OUT/bench-default.jsonl" 2>&1
[ -n "${ACCEPT_LIGHT:-}" ] || $B/bench_sort --runs 3 --set sort.improvement_break=1e-4 --set sort.max_passes=16 \
    --set sort.max_configs=16 --set sort.min_configs=4 \
    $P:/colors_1024 $P:/colors_2048 normal:1024x1024x16 > "$OUT/bench-quality.jsonl" 2>&1
python3 - "$OUT" <<'PY'
import json, sys, glob
for f in sorted(glob.glob(sys.argv[1] + "/bench-*.jsonl")):
    print("==", f.split("/")[-1])
    for line in open(f):
        try:
            d = json.loads(line)
        except ValueError:
            print(line.strip()[:200]); continue
        if "error" in d:
            print(d); continue
        print("%-22s %9.1f ms  AND %7.3f -> %6.3f  passes %5d  B/cell %5.1f" % (
            d["case"].split("/")[-1], d["device_ms"], d["and_before"], d["and_after"],
            d["passes"], d["bytes_per_cell"]))
PY
cat "$OUT/summary.txt"
# where the time goes: a window of representative launches at 2048^2 x 3
timeout 180 ncu --kernel-name regex:"level_kernel|window_kernel|prefix_kernel|seg_sum_kernel|seg_scan_kernel|shuffle_kernel" \
    --launch-skip 300 --launch-count 24 --section SpeedOfLight --csv \
    $B/bench_sort --runs 1 colors:2048x2048 > "$OUT/ncu-2048x3.csv" 2> "$OUT/ncu.err"
echo "ncu rc=$?" | tee -a "$OUT/summary.txt"
