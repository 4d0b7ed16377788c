#!/bin/bash
# v11: when are the lanes ready? B (512 x 256^2 x 3) with 4, 8 and 16 lanes, and one file
set -u
cd .dev && tar xJf libs.tar.xz && cd ..
export LD_LIBRARY_PATH=$PWD/.dev/lib
B=$PWD/.dev/bin; W=/tmp/v11; rm -rf $W; mkdir -p $W; cd $W
$B/cuplas gen --kind colors --size 256x256 --count 512 --deflate 1 --seed 2 Bc.h5 > /dev/null
$B/cuplas gen --kind colors --size 1024x1024 one.h5 > /dev/null
printf 'inputs:\n  - files: %s/Bc.h5\noutput:\n  dir: out\n  overwrite: overwrite\nbackend:\n  device: gpu\n' $W > cfg.yaml
$B/cuplas run cfg.yaml --set output.dir=out-w > /dev/null 2>&1
show() { python3 -c "
import json,sys
ev=[json.loads(l) for l in open('$1') if l.startswith('{')]
t=[e for e in ev if e['event']=='run_timing'][0]; d=sorted(e['time'] for e in ev if e['event']=='job_done')
rs=[e for e in ev if e['event']=='run_start'][0]['time']
print('$2: process %.3f s; first job done %.3f, last %.3f into the run; %s' % ($3, d[0]-rs, d[-1]-rs, t['msg']))"; }
for l in 16 8 4 16; do
  t0=$(date +%s.%N); $B/cuplas run cfg.yaml --set output.dir=out-$l --set backend.lanes=$l --log-format json --set logging.level=debug > b$l.log 2>&1; t1=$(date +%s.%N)
  show b$l.log "B lanes $l" $(python3 -c "print($t1-$t0)")
done | tee $OUT/v11.txt
for k in 1 2 3; do t0=$(date +%s.%N); $B/cuplas sort one.h5 s.h5 --force --log-format json --set logging.level=debug > one$k.log 2>&1; t1=$(date +%s.%N)
  show one$k.log "one-file" $(python3 -c "print($t1-$t0)"); done | tee -a $OUT/v11.txt
