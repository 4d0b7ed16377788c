# v18: a collection through configs/playcanvas.yaml with its sog step, on an H200: 16 scenes
# (the plant and tarot captures, 8 copies each under other names), the SOG folders at WebP
# method 6 (the preset) and at method 2, and without the step; whole-run wall time, grids/s
# and GPU busy share from the run's device_summary; the folders of both methods checked
# against export-sog for one scene.
[ -d .dev/bin ] || (cd .dev && tar xJf bin.tar.xz)
source bench/device-lib.sh; dev_setup v18
export OMP_NUM_THREADS=16
mkdir -p $W/in
for k in 1 2 3 4 5 6 7 8; do
  cp .dev/scenes/plant.splat $W/in/plant$k.splat; cp .dev/scenes/academic_tarot_cards.splat $W/in/tarot$k.splat
done
for v in m6 m2 off; do
  case $v in m6) s="--set sog.webp_method=6";; m2) s="--set sog.webp_method=2";; off) s="--set sog.enabled=false";; esac
  for r in 1 2; do
    rm -rf $W/o; t0=$(date +%s.%N)
    $B/cuplas run configs/playcanvas.yaml --set "inputs=[{files: \"$W/in/*.splat\"}]" --set output.dir=$W/o --set output.ply=false $s --log-format json > $OUT/run-$v-$r.log 2>&1; rc=$?; t1=$(date +%s.%N)
    python3 - $OUT/run-$v-$r.log $v $r $rc $t0 $t1 <<'PY' | tee -a $OUT/runs.txt
import json, sys
log, v, r, rc, t0, t1 = sys.argv[1:7]
ev = [json.loads(l) for l in open(log) if l.startswith('{')]
dev = [e for e in ev if e.get('event') == 'device_summary']
done = [e for e in ev if e.get('event') == 'job_done']
sog = sum(e.get('sog_s', 0) for e in done); srt = sum(e.get('sort_s', 0) for e in done)
by = sum(e.get('sog_bytes', 0) for e in done)
d = dev[0] if dev else {}
print(f"{v} run {r} rc={rc} wall {float(t1)-float(t0):.2f} s, {len(done)} done, {d.get('grids_per_s', 0):.2f} grids/s, gpu busy {d.get('gpu_busy_s', 0):.2f} s, lanes {d.get('lanes')}, sum sort_s {srt:.2f}, sum sog_s {sog:.1f}, SOG bytes {by}")
PY
  done
  if [ $v != off ]; then
    $B/cuplas export-sog $W/o/plant3.vertex.h5 $W/ex-$v --webp-method ${v#m} > /dev/null 2>&1
    echo "$v: plant3's folder vs export-sog: $(diff -r $W/ex-$v $W/o/plant3.vertex.sog > /dev/null && echo identical || echo DIFFER)" | tee -a $OUT/runs.txt
  fi
done
echo "== summary"; cat $OUT/runs.txt
