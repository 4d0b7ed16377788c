#!/bin/bash
# v3: why the first sort of a process takes 92 ms on the GPU (23 ms warm)
set -u
cd .dev && tar xJf libs.tar.xz && cd ..
export LD_LIBRARY_PATH=$PWD/.dev/lib
B=$PWD/.dev/bin; W=/tmp/v3; mkdir -p $W; cd $W
$B/cuplas gen --kind colors --size 1024x1024 --count 3 --seed 4 three.h5 > /dev/null
$B/cuplas gen --kind colors --size 1024x1024 one.h5 > /dev/null
printf 'inputs:\n  - files: three.h5\noutput:\n  dir: o3\n  overwrite: overwrite\nbackend:\n  device: gpu\n  lanes: 1\n' > three.yaml
ev() { python3 -c "
import json,sys
for l in open(sys.argv[1]):
  if l.startswith('{'):
    d=json.loads(l)
    if d['event']=='job_done': print('  job', d['dataset'], 'gpu_sort_ms %.1f sort_s %.3f write_s %.3f' % (d['gpu_sort_ms'], d['sort_s'], d['write_s']))
    last=d['time']
print('  exit after last event %.3f s' % (float(sys.argv[2]) - last))" $1 $2; }
for mode in LAZY EAGER; do for k in 1 2; do
  CUDA_MODULE_LOADING=$mode $B/cuplas run three.yaml --log-format json > r-$mode-$k.log 2>&1; t=$(date +%s.%N)
  echo "three grids, 1 lane, $mode run $k"; ev r-$mode-$k.log $t
done; done | tee $OUT/three.txt
for k in 1 2 3; do
  $B/cuplas sort one.h5 s.h5 --force --log-format json > s-$k.log 2>&1; t=$(date +%s.%N)
  echo "one-file run $k"; ev s-$k.log $t
done | tee $OUT/one.txt
nvidia-smi --query-gpu=clocks.sm,clocks.max.sm,pstate,persistence_mode --format=csv > $OUT/clocks.txt
which nsys ncu cuobjdump > $OUT/tools.txt 2>&1
cuobjdump --dump-resource-usage $B/cuplas 2>/dev/null | grep -B1 -E "STACK:[1-9]" | head -60 > $OUT/res.txt
if which nsys > /dev/null 2>&1; then
  nsys profile -o $W/p --force-overwrite true $B/cuplas sort one.h5 s.h5 --force > /dev/null 2>&1
  nsys stats --report cuda_api_sum,cuda_gpu_kern_sum --format csv -o $W/st $W/p.nsys-rep > /dev/null 2>&1
  cp $W/st*.csv $OUT/ 2>/dev/null
  nsys stats --report cuda_api_trace --format csv $W/p.nsys-rep 2>/dev/null | head -300 > $OUT/api_trace.csv
fi
cat $OUT/clocks.txt $OUT/tools.txt; ls $OUT
