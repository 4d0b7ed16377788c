#!/bin/bash
# t6: the GPU tests t5's 330 s limit cut off (groups at full size, large,
# lanes, prepare) and the channels test with the wide row added.
cd .dev && tar xJf libs.tar.xz && cd ..; export LD_LIBRARY_PATH=$PWD/.dev/lib
B=$PWD/.dev/bin
for t in test_gpu_sort_parity_channels test_gpu_sort_parity_groups test_gpu_sort_parity_large test_gpu_lanes_ordered test_gpu_prepare; do
    t0=$(date +%s); CUPLAS_TEST_FILTER=$t timeout 400 $B/test_gpu > $OUT/$t.txt 2>&1; rc=$?
    echo "$t rc=$rc $(( $(date +%s) - t0 )) s: $(grep -E '^\[  (PASSED|FAILED)' $OUT/$t.txt | tr '\n' ' ')"
done
