#!/bin/bash
# v14: after stage_sort.c split out of stages.c: one-file runs (timing, bytes vs
# CPU) and 20 small grids on 3 and 8 lanes vs the CPU backend
set -u
cd .dev && tar xJf libs.tar.xz && cd ..
export LD_LIBRARY_PATH=$PWD/.dev/lib
B=$PWD/.dev/bin; W=/tmp/v7; rm -rf $W; mkdir -p $W/in; cd $W
$B/cuplas gen --kind colors --size 1024x1024 one.h5 > /dev/null
$B/cuplas gen --kind colors --size 256x256 --count 20 --seed 12 --deflate 1 in/b.h5 > /dev/null
$B/cuplas sort one.h5 w.h5 --force > /dev/null 2>&1
for k in 1 2 3 4 5; do t0=$(date +%s.%N); $B/cuplas sort one.h5 s$k.h5 --force --log-format json --set logging.level=debug > one-$k.log 2>&1; t1=$(date +%s.%N)
  python3 -c "
import json,sys
ev=[json.loads(l) for l in open('one-$k.log') if l.startswith('{')]
t=[e for e in ev if e['event']=='run_timing'][0]; j=[e for e in ev if e['event']=='job_done'][0]
print('one-file run $k process %.3f s, sort %.3f write %.3f, first sort waited %.3f, teardown %.3f' % ($t1-$t0, j['sort_s'], j['write_s'], t['first_sort_wait_s'], t['teardown_s']))"
done | tee $OUT/one.txt
$B/cuplas sort one.h5 c.h5 --backend cpu > /dev/null 2>&1; mkdir -p o1 o2; cp c.h5 o1/x.h5; cp s5.h5 o2/x.h5; echo "one-file cpu vs gpu: $($B/cmp_outputs o1 o2 | tail -1)" | tee -a $OUT/one.txt
printf 'inputs:\n  - files: %s/in/*.h5\noutput:\n  dir: out\n  overwrite: overwrite\n' $W > cfg.yaml
$B/cuplas run cfg.yaml --set output.dir=out-cpu --set backend.device=cpu > cpu.log 2>&1; echo "cpu rc $?"
for l in 3 8; do $B/cuplas run cfg.yaml --set output.dir=out-g$l --set backend.lanes=$l --log-format json --set logging.level=debug > g$l.log 2>&1; echo "g$l rc $? $(grep -o '"teardown_s":[0-9.e-]*' g$l.log)"; echo "cpu vs g$l: $($B/cmp_outputs out-cpu out-g$l | tail -1)"; done | tee -a $OUT/one.txt
