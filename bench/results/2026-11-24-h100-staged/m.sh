#!/bin/bash
cd .dev && tar xJf libs.tar.xz && cd ..
export LD_LIBRARY_PATH=$PWD/.dev/lib
B=$PWD/.dev/bin
for r in 1 2; do for b in bench_sort bench_sort_mb3 bench_sort_mb3nokeep; do
  $B/$b --runs 5 normal:1024x1024x16 normal:2048x2048x16 2>&1 | sed "s/^{/{\"bin\":\"$b\",\"round\":$r,/" >> $OUT/mb.jsonl
done; done
python3 - $OUT/mb.jsonl <<'PY'
import json,sys
for l in open(sys.argv[1]):
    d=json.loads(l)
    print("%-22s r%d %-22s %9.2f ms AND %.4f" % (d['bin'], d['round'], d['case'], d.get('device_ms',-1), d.get('and_after',-1)))
PY
