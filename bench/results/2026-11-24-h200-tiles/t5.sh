#!/bin/bash
# t5: 0.5.0 (the default preset's wide row): the whole GPU suite, then
# bench_sort with no --set (the default; wide grids take group_size 16,
# max_passes 1, improvement_break 1e-3) on narrow and wide grids.
cd .dev && tar xJf libs.tar.xz && cd ..; export LD_LIBRARY_PATH=$PWD/.dev/lib
B=$PWD/.dev/bin P=$PWD/.dev/peer-inputs.h5; J=$OUT/t5.jsonl; : > $J
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
t0=$(date +%s); timeout 330 $B/test_gpu > $OUT/test_gpu.txt 2>&1; echo "test_gpu rc=$? $(( $(date +%s) - t0 )) s"
grep -E "^\[  (PASSED|FAILED)|^\[  FAILED" $OUT/test_gpu.txt
timeout 150 $B/bench_sort --runs 5 $P:/colors_1024 normal:1024x1024x8 normal:1024x1024x16 normal:1024x1024x32 2>&1 | grep '^{' >> $J
timeout 100 $B/bench_sort --runs 3 normal:2048x2048x16 2>&1 | grep '^{' >> $J
python3 - $J <<'PY'
import json, sys
for l in open(sys.argv[1]):
    d = json.loads(l)
    print("%-22s k=%-2d %9.1f ms  AND %.4f  passes %5d  B/cell %.1f" % (d["case"][-22:], d["group"], d["device_ms"], d["and_after"], d["passes"], d["bytes_per_cell"]))
PY
