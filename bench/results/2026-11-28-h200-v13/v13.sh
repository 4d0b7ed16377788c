# v13: configs/playcanvas.yaml on the GPU. Both captures (4 lanes, 3 runs), each compared
# byte for byte (index and sorted) with the CPU backend's run (bench/cmp_outputs); whole
# processes timed (1 lane a process, 5 runs each after a warm-up, median in the table);
# then test_gpu quick.
[ -d .dev/bin ] || (cd .dev && tar xJf bin.tar.xz)
source bench/device-lib.sh; dev_setup v13
P=configs/playcanvas.yaml; IN='inputs=[{files: .dev/scenes/*.splat}]'
OMP_NUM_THREADS=16 $B/cuplas run $P --set "$IN" --set output.dir=$W/cpu --set output.ply=false --set backend.device=cpu --log-format text 2>&1 | grep summary | sed 's/^/cpu: /' | tee $OUT/runs.txt
for r in 1 2 3; do
  $B/cuplas run $P --set "$IN" --set output.dir=$W/g$r --set output.ply=false --set backend.lanes=4 --log-format text > $W/g$r.log 2>&1
  echo "gpu run $r rc=$?: $(grep summary $W/g$r.log) | cmp: $($B/cmp_outputs $W/cpu $W/g$r 2>&1 | tail -1)" | tee -a $OUT/runs.txt
done
for s in plant academic_tarot_cards; do
  for r in 0 1 2 3 4 5; do
    rm -rf $W/t; t0=$(date +%s.%N)
    $B/cuplas run $P --set "inputs=[{files: .dev/scenes/$s.splat}]" --set output.dir=$W/t --log-format json > $W/t.log 2>&1
    t1=$(date +%s.%N); [ $r -gt 0 ] && rec "$s ply=on r$r" $W/t.log $t0 $t1
  done
done
python3 - $J <<'PY' | tee -a $OUT/runs.txt
import json, sys, statistics as st
rows = [json.loads(l) for l in open(sys.argv[1])]
for s in ("plant", "academic_tarot_cards"):
    r = [x for x in rows if x["label"].startswith(s)]
    print(f"{s:22s} n={len(r)} process median {st.median(x['process_s'] for x in r):.3f} s  sort {st.median(x.get('sort_s',0) for x in r):.3f} s  gpu_sort_ms {st.median(x.get('gpu_sort_ms',0) for x in r):.1f}")
PY
CUPLAS_TEST_QUICK=1 $B/test_gpu > $OUT/test_gpu.txt 2>&1; echo "test_gpu quick rc=$?: $(grep -E 'PASSED|FAILED' $OUT/test_gpu.txt | tr '\n' ' ')" | tee -a $OUT/runs.txt
