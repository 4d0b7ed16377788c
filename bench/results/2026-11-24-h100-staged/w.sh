#!/bin/bash
cd .dev && tar xJf libs.tar.xz && cd ..
export LD_LIBRARY_PATH=$PWD/.dev/lib
B=$PWD/.dev/bin
for r in 1 2; do for b in bench_sort_old bench_sort; do
  $B/$b --runs 5 normal:1024x1024x16 normal:1024x1024x8 normal:2048x2048x16 2>&1 | sed "s/^{/{\"bin\":\"$b\",\"round\":$r,/" >> $OUT/wide.jsonl
done; done
compute-sanitizer --tool memcheck --error-exitcode 9 $B/bench_sort --runs 1 normal:96x80x16 normal:96x80x8 normal:300x200x16 > $OUT/memcheck.log 2>&1; echo "memcheck rc $?"
for t in test_gpu_sort_parity_channels test_gpu_sort_parity_nondefault test_gpu_pass_parity test_gpu_sort_parity_shapes; do CUPLAS_TEST_FILTER=$t timeout 200 $B/test_gpu > $OUT/$t.log 2>&1; echo "$t rc $? $(grep -c '\[       OK \]' $OUT/$t.log)"; done
python3 - $OUT/wide.jsonl <<'PY'
import json,sys
for l in open(sys.argv[1]):
    d=json.loads(l)
    print("%-15s r%d %-22s %9.2f ms AND %.4f" % (d['bin'], d['round'], d['case'], d.get('device_ms',-1), d.get('and_after',-1)))
PY
