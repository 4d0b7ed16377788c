#!/bin/bash
set -u
export LD_LIBRARY_PATH=$PWD/.dev/lib
B=$PWD/.dev/bin P=$PWD/.dev/peer-inputs.h5
J=$OUT/bench.jsonl; : > $J
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/gpu.txt
$B/bench_sort --runs 5 normal:1024x1024x16 colors:2048x2048 $P:/colors_1024 $P:/colors_256 $P:/colors_512 2>&1 | sed "s/^{/{\"label\":\"${LABEL:-staged}\",/" >> $J
compute-sanitizer --tool memcheck --error-exitcode 9 $B/bench_sort --runs 1 $P:/colors_256 normal:96x80x16 normal:64x64x59 > $OUT/memcheck.log 2>&1; echo "memcheck rc $?"
compute-sanitizer --tool racecheck --error-exitcode 9 $B/bench_sort --runs 1 normal:96x80x16 > $OUT/racecheck.log 2>&1; echo "racecheck rc $?"
for t in ${TESTS:-test_gpu_sort_parity_nondefault test_gpu_sort_parity_channels test_gpu_sort_parity_shapes}; do
  ( time CUPLAS_TEST_FILTER=$t timeout 300 $B/test_gpu ) > $OUT/$t.log 2>&1; echo "$t rc $? $(grep -c OK $OUT/$t.log)"
done
python3 - $J <<'PY'
import json,sys
for l in open(sys.argv[1]):
    if l.startswith('{'):
        d=json.loads(l)
        if 'device_ms' in d: print("%-8s %-28s %9.2f ms AND %.4f passes %d" % (d['label'], d['case'][-28:], d['device_ms'], d['and_after'], d['passes']))
        else: print(l.rstrip())
    else: print(l.rstrip())
PY
