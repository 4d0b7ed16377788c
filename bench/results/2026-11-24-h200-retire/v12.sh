#!/bin/bash
# v12: the final build's GPU suite parts not run since the kernels' refactor (v6): large, blur,
# lanes, prepare; one test per process
set -u
cd .dev && tar xJf libs.tar.xz && cd ..
export LD_LIBRARY_PATH=$PWD/.dev/lib
for t in test_gpu_sort_parity_large test_gpu_blur_parity test_gpu_lanes_ordered test_gpu_prepare test_gpu_sort_parity_shapes; do
  ( time CUPLAS_TEST_FILTER=$t timeout 400 .dev/bin/test_gpu ) > $OUT/$t.log 2>&1; echo "$t rc $? ok $(grep -c 'OK \]' $OUT/$t.log) $(grep real $OUT/$t.log)"
done | tee $OUT/v12.txt
