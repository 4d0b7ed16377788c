#!/bin/bash
cd .dev && tar xJf libs.tar.xz && cd ..
export LD_LIBRARY_PATH=$PWD/.dev/lib
B=$PWD/.dev/bin P=$PWD/.dev/peer-inputs.h5
$B/bench_sort --runs 5 $P:/colors_1024 colors:2048x2048 normal:1024x1024x16 normal:1024x1024x12 normal:512x512x59 > $OUT/final-bench.jsonl 2>&1
compute-sanitizer --tool memcheck --error-exitcode 9 $B/bench_sort --runs 1 $P:/colors_256 normal:96x80x16 normal:64x64x59 > $OUT/memcheck.log 2>&1; echo "memcheck rc $?"
for t in test_gpu_sort_parity_shapes test_gpu_sort_parity_channels test_gpu_sort_parity_nondefault test_gpu_pass_parity test_gpu_lanes_ordered test_gpu_prepare; do CUPLAS_TEST_FILTER=$t timeout 200 $B/test_gpu > $OUT/$t.log 2>&1; echo "$t rc $? $(grep -c '\[       OK \]' $OUT/$t.log)"; done
python3 -c "
import json
for l in open('$OUT/final-bench.jsonl'):
    d=json.loads(l); print('%-30s %9.2f ms AND %.4f' % (d['case'][-30:], d.get('device_ms',-1), d.get('and_after',-1)))"
