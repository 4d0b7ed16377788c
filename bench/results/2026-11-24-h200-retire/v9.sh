#!/bin/bash
# v9: collection B's ramp-up: when do the 16 lanes start and finish their first grids?
set -u
cd .dev && tar xJf libs.tar.xz && cd ..
export LD_LIBRARY_PATH=$PWD/.dev/lib
B=$PWD/.dev/bin; W=/tmp/v9; rm -rf $W; mkdir -p $W; cd $W
$B/cuplas gen --kind colors --size 256x256 --count 512 --deflate 1 --seed 2 Bc.h5 > /dev/null
printf 'inputs:\n  - files: %s/Bc.h5\noutput:\n  dir: out\n  overwrite: overwrite\nbackend:\n  device: gpu\n' $W > cfg.yaml
$B/cuplas run cfg.yaml --set output.dir=out-w > /dev/null 2>&1
for k in 1 2; do
  t0=$(date +%s.%N); $B/cuplas run cfg.yaml --set output.dir=out-$k --log-format json --set logging.level=debug > b-$k.log 2>&1; t1=$(date +%s.%N)
  python3 - b-$k.log $t0 $t1 <<'PY' | tee -a $OUT/v9.txt
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1]) if l.startswith('{')]
t0, t1 = float(sys.argv[2]), float(sys.argv[3])
rs = [e for e in ev if e['event'] == 'run_start'][0]
rt = [e for e in ev if e['event'] == 'run_timing'][0]
starts = sorted(e['time'] for e in ev if e['event'] == 'job_start')
dones = sorted(e['time'] for e in ev if e['event'] == 'job_done')
ws = rs.get('workers')
print("process %.3f s; run_start at %.3f; workers %s; %s" % (t1 - t0, rs['time'] - t0, ws, rt['msg']))
print("  job_start: first %.3f, 16th %.3f; job_done: first %.3f, 16th %.3f, 32nd %.3f, last %.3f (s after process start)" % (
    starts[0] - t0, starts[15] - t0, dones[0] - t0, dones[15] - t0, dones[31] - t0, dones[-1] - t0))
n = len(dones); a, b = n // 10, 9 * n // 10
rate = (b - a) / (dones[b] - dones[a])
print("  steady %.1f grids/s; at that rate 512 grids take %.3f s; run from first job_start to last job_done %.3f s; after the last job_done %.3f s" % (
    rate, n / rate, dones[-1] - starts[0], t1 - dones[-1]))
js = [e for e in ev if e['event'] == 'job_done']
import statistics as st
for key in ('read_s', 'prep_s', 'sort_s', 'write_s', 'gpu_sort_ms'):
    print("  median %s %.4f" % (key, st.median(e[key] for e in js)), end='')
print()
PY
done
