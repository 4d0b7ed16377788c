# v17: run's sog step (configs/playcanvas.yaml, sog.enabled on) on an H200: the plant with
# noise SH once and nine times (bench/scene_tile), and the two .splat captures; the
# process's wall time, the step's sog_s and sog_bytes; the folder against export-sog's
# (GPU) and against the CPU backend's, byte for byte; a rerun skips.
[ -d .dev/bin ] || (cd .dev && tar xJf bin.tar.xz)
source bench/device-lib.sh; dev_setup v17
export OMP_NUM_THREADS=16
for k in 1 9; do $B/scene_tile .dev/scenes/plant.splat $W/p$k.ply $k > /dev/null; done
cp .dev/scenes/plant.splat .dev/scenes/academic_tarot_cards.splat $W/
for s in p1.ply p9.ply plant.splat academic_tarot_cards.splat; do
  for r in 1 2 3; do
    rm -rf $W/r; t0=$(date +%s.%N)
    $B/cuplas run configs/playcanvas.yaml --set "inputs=[{files: $W/$s}]" --set output.dir=$W/r --set output.ply=false --log-format json > $OUT/run-$s-$r.log 2>&1; rc=$?; t1=$(date +%s.%N)
    rec "$s" $OUT/run-$s-$r.log $t0 $t1
    python3 - $OUT/run-$s-$r.log $s $r $rc $t0 $t1 <<'PY' | tee -a $OUT/runs.txt
import json, sys
log, s, r, rc, t0, t1 = sys.argv[1:7]
d = [json.loads(l) for l in open(log) if '"job_done"' in l]
d = d[0] if d else {}
print(f"{s} run {r} rc={rc} process {float(t1)-float(t0):.2f} s: sort_s {d.get('sort_s', 0):.2f} sog_s {d.get('sog_s', 0):.2f} write_s {d.get('write_s', 0):.2f} sog_bytes {d.get('sog_bytes')}")
PY
  done
  b=${s%.*}
  $B/cuplas export-sog $W/r/$b.vertex.h5 $W/ex-$b --backend gpu > /dev/null 2>&1
  echo "$s: run's folder vs export-sog (gpu): $(diff -r $W/ex-$b $W/r/$b.vertex.sog > /dev/null && echo identical || echo DIFFER)" | tee -a $OUT/runs.txt
  if [ $s = p1.ply ]; then
    rm -rf $W/rc; $B/cuplas run configs/playcanvas.yaml --set "inputs=[{files: $W/$s}]" --set output.dir=$W/rc --set output.ply=false --set backend.device=cpu --log-format json > $OUT/run-cpu.log 2>&1
    echo "p1: GPU run's folder vs CPU run's: $(diff -r $W/rc/p1.vertex.sog $W/r/p1.vertex.sog > /dev/null && echo identical || echo DIFFER); cpu sog_s $(grep -o '"sog_s":[0-9.]*' $OUT/run-cpu.log)" | tee -a $OUT/runs.txt
    t0=$(date +%s.%N); $B/cuplas run configs/playcanvas.yaml --set "inputs=[{files: $W/$s}]" --set output.dir=$W/r --set output.ply=false --log-format text 2>&1 | grep summary | tee -a $OUT/runs.txt
  fi
done
echo "== summary"; cat $OUT/runs.txt
