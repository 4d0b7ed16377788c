#!/bin/bash
# u2: where a one-file run's host time goes (instrumented build: TT lines), deflate on 1..16 threads
set -u
cd .dev && tar xJf libs.tar.xz && cd ..
export LD_LIBRARY_PATH=$PWD/.dev/lib
B=$PWD/.dev/bin; W=/tmp/u2w; mkdir -p $W
lscpu | grep -E "Model name|^CPU\(s\)|MHz" > $OUT/cpu.txt
$B/cuplas gen --kind colors --size 1024x1024 $W/c.h5 > /dev/null
$B/cuplas sort $W/c.h5 $W/s.h5 --force > /dev/null 2>&1
for t in 1 4 16; do $B/bench_deflate --rounds 5 --threads $t --levels 1-1 $W/c.h5 /grid $W/s.h5; done > $OUT/deflate.jsonl 2>&1
for r in 1 2 3; do
  t0=$EPOCHREALTIME; $B/cuplas sort $W/c.h5 $W/s.h5 --force --log-format json > $W/l$r.txt 2>&1; t1=$EPOCHREALTIME
  echo "run $r process $(python3 -c "print(round($t1-$t0,3))") $(grep TT $W/l$r.txt | tr '\n' ' ')"
done | tee $OUT/tt.txt
for r in 1 2; do $B/cuplas sort $W/c.h5 $W/sc.h5 --force --backend cpu --set sort.max_passes=1 --set sort.max_configs=1 --set sort.min_configs=1 2>&1 | grep TT | tr '\n' ' '; echo; done | tee -a $OUT/tt.txt
for r in 1 2 3 4 5; do t0=$EPOCHREALTIME; $B/cuplas --version > /dev/null; t1=$EPOCHREALTIME; t2=$EPOCHREALTIME; OMP_WAIT_POLICY=passive $B/cuplas --version >/dev/null; t3=$EPOCHREALTIME
  echo "version $(python3 -c "print(round($t1-$t0,4), round($t3-$t2,4))")"; done | tee -a $OUT/tt.txt
OMP_WAIT_POLICY=passive LD_DEBUG=statistics $B/cuplas --version 2>&1 | tail -8 >> $OUT/tt.txt
cat $OUT/deflate.jsonl | python3 -c "
import json,sys
for l in sys.stdin:
  if l.startswith('{'): d=json.loads(l); print(d['encoder'],d['threads'],d['encode_ms'],d['mib_per_s'])
  else: print(l.strip())"
cat $OUT/cpu.txt
