# v15: (1) A/B of the blur's shared-memory attribute set once per context (B, this commit)
# against per launch (A, the commit before): bench_sort --runs 11 on three cases, A B A B A B,
# medians of device_ms and wall_ms, AND after each (the same index expected); (2) test_gpu
# quick; (3) the palette's k-means parity after the variance order and first hint; (4)
# export-sog of the plant with noise SH, GPU against CPU, byte for byte.
[ -d .dev/bin ] || (cd .dev && tar xJf bin.tar.xz)
source bench/device-lib.sh; dev_setup v15
export OMP_NUM_THREADS=16
for r in 1 2 3; do
  for v in A B; do
    b=$B/bench_sort; [ $v = A ] && b=$B/bench_sort_A
    $b --runs 11 .dev/peer-inputs.h5:/colors_1024 colors:256x256 normal:1024x1024x16 2>/dev/null | sed "s/^{/{\"ab\":\"$v\",\"round\":$r,/" >> $J
  done
done
python3 - $J <<'PY' | tee $OUT/ab.txt
import json, sys, statistics as st
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith('{')]
for c in sorted({r['case'] for r in rows}):
    for v in 'AB':
        rs = [r for r in rows if r['case'] == c and r['ab'] == v]
        print(f"{c:34s} {v} device_ms {[r['device_ms'] for r in rs]} wall_ms {[r['wall_ms'] for r in rs]} and_after {sorted({r['and_after'] for r in rs})}")
PY
CUPLAS_TEST_QUICK=1 $B/test_gpu > $OUT/test_gpu.txt 2>&1; echo "test_gpu quick rc=$?: $(grep -E 'PASSED|FAILED' $OUT/test_gpu.txt | tr '\n' ' ')" | tee $OUT/runs.txt
$B/scene_tile .dev/scenes/plant.splat $W/p1.ply 1 > /dev/null
$B/cuplas run configs/playcanvas.yaml --set "inputs=[{files: $W/p1.ply}]" --set output.dir=$W/r --set output.ply=false --log-format text 2>&1 | grep summary | tee -a $OUT/runs.txt
for b in gpu cpu; do
  t0=$(date +%s.%N); $B/cuplas export-sog $W/r/p1.vertex.h5 $W/sog1-$b --backend $b > $OUT/export-p1-$b.txt 2>&1; rc=$?; t1=$(date +%s.%N)
  echo "export p1 $b rc=$rc $(python3 -c "print(f'{$t1-$t0:.2f} s')") | $(tr '\n' ' ' < $OUT/export-p1-$b.txt)" | tee -a $OUT/runs.txt
done
echo "p1 gpu vs cpu files: $(diff -r $W/sog1-gpu $W/sog1-cpu > /dev/null && echo identical || echo DIFFER)" | tee -a $OUT/runs.txt
$B/bench_palette 114865 45 65536 10 0 --cpu-check | tee -a $OUT/runs.txt
