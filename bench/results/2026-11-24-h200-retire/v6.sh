#!/bin/bash
# v6: level_pass_end / group_move_index refactor (no change intended): GPU parity of the level
# and group kernels, and old (0.4.1) vs new bench_sort, interleaved, same machine
set -u
cd .dev && tar xJf libs.tar.xz && cd ..
export LD_LIBRARY_PATH=$PWD/.dev/lib
B=$PWD/.dev/bin; O=$PWD/.dev/old/bin
for t in test_gpu_sort_parity_shapes test_gpu_sort_parity_groups test_gpu_sort_parity_nondefault test_gpu_sort_parity_channels test_gpu_pass_parity; do
  ( time CUPLAS_TEST_FILTER=$t timeout 200 $B/test_gpu ) > $OUT/$t.log 2>&1; echo "$t rc $? ok $(grep -c 'OK \]' $OUT/$t.log)"
done
for r in 1 2; do for b in old new; do bin=$([ $b = old ] && echo $O || echo $B)
  $bin/bench_sort --runs 5 colors:1024x1024 normal:1024x1024x16 > $OUT/bench-$b-$r.jsonl 2>&1
  $bin/bench_sort --runs 3 --set sort.group_size=8 colors:512x512 >> $OUT/bench-$b-$r.jsonl 2>&1
done; done
python3 - $OUT <<'PY' | tee $OUT/v6-table.txt
import json, sys, glob, os
for f in sorted(glob.glob(os.path.join(sys.argv[1], "bench-*.jsonl"))):
    for l in open(f):
        if l.startswith("{"):
            d = json.loads(l)
            print("%-18s %-22s device_ms %8.2f AND %.4f" % (os.path.basename(f), d.get("case"), d.get("device_ms", -1), d.get("and_after", -1)))
PY
