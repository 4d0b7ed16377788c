#!/bin/bash
# v5: lanes retiring, end to end: a mixed collection (3 x 1024^2 x 3, 20 x 256^2 x 3,
# 4 x 96x80x16, one corrupted file) on the GPU with 1, 3 and 8 lanes against the CPU backend;
# a one-file sort on 4 lanes; exit codes and bytes compared
set -u
cd .dev && tar xJf libs.tar.xz && cd ..
export LD_LIBRARY_PATH=$PWD/.dev/lib
B=$PWD/.dev/bin; W=/tmp/v5; rm -rf $W; mkdir -p $W/in; cp .dev/bad.h5 $W/in/bad.h5; cd $W
$B/cuplas gen --kind colors --size 1024x1024 --count 3 --seed 11 in/a.h5 > /dev/null
$B/cuplas gen --kind colors --size 256x256 --count 20 --seed 12 --deflate 1 in/b.h5 > /dev/null
$B/cuplas gen --kind normal --size 96x80 --channels 16 --count 4 --seed 13 in/c.h5 > /dev/null
printf 'inputs:\n  - files: %s/in/*.h5\noutput:\n  dir: out\n  overwrite: overwrite\n' $W > cfg.yaml
run() { # name backend lanes
  $B/cuplas run cfg.yaml --set output.dir=out-$1 --set backend.device=$2 ${3:+--set backend.lanes=$3} --log-format json > $1.log 2>&1
  echo "$1 rc $? done $(grep -c '"job_done"' $1.log) failed $(grep -c '"job_failed"' $1.log)"
}
run cpu cpu
for l in 1 3 8; do run g$l gpu $l; done
for l in 1 3 8; do echo "cpu vs g$l: $($B/cmp_outputs out-cpu out-g$l | tail -1) rc $?"; done
grep -h '"job_failed"' g3.log | head -1 | cut -c1-400
$B/cuplas sort in/a.h5:/grid_000 one-cpu.h5 --backend cpu > /dev/null 2>&1; echo "one cpu rc $?"
$B/cuplas sort in/a.h5:/grid_000 one-g4.h5 --set backend.lanes=4 --log-format json > one-g4.log 2>&1; echo "one g4 rc $?"
mkdir -p o1 o2 && cp one-cpu.h5 o1/one.h5 && cp one-g4.h5 o2/one.h5 && echo "one cpu vs g4: $($B/cmp_outputs o1 o2 | tail -1)"
printf 'inputs:\n  - files: %s/in/[bc]*.h5\noutput:\n  dir: out\n  overwrite: overwrite\n' $W > small.yaml
compute-sanitizer --tool memcheck --error-exitcode 9 $B/cuplas run small.yaml --set output.dir=out-ms --set backend.lanes=3 > ms.log 2>&1; echo "memcheck b+c+bad, 3 lanes rc $? $(tail -1 ms.log)"
mkdir -p out-cpu-small && cp out-cpu/b.* out-cpu/c.* out-cpu-small/ 2>/dev/null
echo "cpu vs memcheck run: $($B/cmp_outputs out-cpu-small out-ms | tail -1)"
tar czf $OUT/v5-logs.tgz *.log
