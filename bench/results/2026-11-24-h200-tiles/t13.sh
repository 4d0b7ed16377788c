#!/bin/bash
# t13: after the review's tidy-up of the group launch (one rule for the
# threads a group takes, one instance macro per tile size): GPU parity,
# and the same times and AND as t9 / t2.
cd .dev && tar xJf libs.tar.xz && cd ..; export LD_LIBRARY_PATH=$PWD/.dev/lib
B=$PWD/.dev/bin P=$PWD/.dev/peer-inputs.h5; J=$OUT/t13.jsonl; : > $J
for t in test_gpu_pass_parity test_gpu_sort_parity_channels test_gpu_sort_parity_groups; do
    CUPLAS_TEST_QUICK=1 CUPLAS_TEST_FILTER=$t timeout 200 $B/test_gpu > $OUT/$t.txt 2>&1
    echo "$t rc=$?: $(grep -E '^\[  (PASSED|FAILED)' $OUT/$t.txt | tr '\n' ' ')"
done
$B/bench_sort --runs 5 $P:/colors_1024 normal:1024x1024x16 2>&1 | grep '^{' >> $J
$B/bench_sort --runs 5 --set sort.group_size=16 --set sort.improvement_break=1e-3 --set sort.max_passes=2 $P:/colors_1024 2>&1 | grep '^{' >> $J
python3 - $J <<'PY'
import json, sys
for l in open(sys.argv[1]):
    d = json.loads(l)
    print("%-22s k=%-2d %8.1f ms  AND %.4f  passes %4d" % (d["case"][-22:], d["group"], d["device_ms"], d["and_after"], d["passes"]))
PY
