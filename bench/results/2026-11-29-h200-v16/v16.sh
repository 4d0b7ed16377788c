# v16: eval --scheme playcanvas with the SH palette (each order's own k-means palette,
# shN_centroids + shN_labels). The plant capture with noise SH (bench/scene_tile, 1 and 9
# copies) sorted on the GPU by configs/playcanvas.yaml, then: (1) eval on the GPU and on
# the CPU (16 threads): the same JSON bytes; (2) eval --images against export-sog on the
# GPU: the sorted order's files byte for byte; (3) run's eval step on the GPU lane against
# the CLI's bytes; (4) test_gpu quick.
[ -d .dev/bin ] || (cd .dev && tar xJf bin.tar.xz)
source bench/device-lib.sh; dev_setup v16
export OMP_NUM_THREADS=16
CUPLAS_TEST_QUICK=1 $B/test_gpu > $OUT/test_gpu.txt 2>&1; echo "test_gpu quick rc=$?: $(grep -E 'PASSED|FAILED' $OUT/test_gpu.txt | tr '\n' ' ')" | tee $OUT/runs.txt
for k in 1 9; do
  $B/scene_tile .dev/scenes/plant.splat $W/p$k.ply $k > /dev/null
  $B/cuplas run configs/playcanvas.yaml --set "inputs=[{files: $W/p$k.ply}]" --set output.dir=$W/r --set output.ply=false --log-format text 2>&1 | grep summary | tee -a $OUT/runs.txt
done
summ() { python3 - "$@" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); b = d['bytes']; ib = d.get('image_bytes', {})
s, m = b['sorted']['webp'], b['morton']['webp']
sh = {o: {n: ib[o]['webp'][n] for n in ('shN_centroids', 'shN_labels')} for o in ('sorted', 'morton')} if ib else {}
print(f"{sys.argv[2]}: {d['seconds']:.2f} s eval, palette {d['sh_palette']}, webp sorted {s} morton {m} ratio {s/m:.4f}, shN {sh}")
PY
}
for k in 1 9; do for b in gpu cpu; do
  [ $k = 9 ] && [ $b = cpu ] && continue
  t0=$(date +%s.%N); $B/cuplas eval $W/r/p$k.vertex.h5 --scheme playcanvas --codecs webp --orders sorted,morton --backend $b --json > $OUT/eval-p$k-$b.json 2> $OUT/eval-p$k-$b.err; rc=$?; t1=$(date +%s.%N)
  echo "eval p$k $b rc=$rc wall $(python3 -c "print(f'{$t1-$t0:.2f} s')") | $(summ $OUT/eval-p$k-$b.json p$k-$b)" | tee -a $OUT/runs.txt
done; done
python3 -c "
import json
a, b = (json.load(open('$OUT/eval-p1-%s.json' % x)) for x in ('gpu', 'cpu'))
print('p1 eval gpu vs cpu bytes:', 'identical' if a['bytes'] == b['bytes'] and a['image_bytes'] == b['image_bytes'] else 'DIFFER')" | tee -a $OUT/runs.txt
$B/cuplas export-sog $W/r/p1.vertex.h5 $W/sog1 --backend gpu > $OUT/export-p1.txt 2>&1
$B/cuplas eval $W/r/p1.vertex.h5 --scheme playcanvas --codecs webp --orders sorted --backend gpu --images $W/ev1 > /dev/null 2>&1
n=0; for f in $W/sog1/*.webp; do cmp -s $f $W/ev1/sorted/$(basename $f) && n=$((n+1)); done
echo "export-sog p1 (gpu) vs eval --images sorted: $n of $(ls $W/sog1/*.webp | wc -l) files identical; $(tail -1 $OUT/export-p1.txt)" | tee -a $OUT/runs.txt
t0=$(date +%s.%N); $B/cuplas run configs/playcanvas.yaml --set "inputs=[{files: $W/p1.ply}]" --set output.dir=$W/re --set output.ply=false --set eval.enabled=true --log-format json > $OUT/run-eval.log 2>&1; t1=$(date +%s.%N)
python3 - $W/re/cuplas-manifest.json $OUT/eval-p1-gpu.json $OUT/run-eval.log <<'PY' | tee -a $OUT/runs.txt
import json, sys
m = json.load(open(sys.argv[1])); c = json.load(open(sys.argv[2]))
e = [j for j in m['datasets'] if 'eval' in j][0]['eval']
same = e['bytes']['sorted']['webp'] == c['bytes']['sorted']['webp'] and e['bytes']['morton']['webp'] == c['bytes']['morton']['webp']
print(f"run eval step (gpu lane): eval {e['seconds']:.2f} s, sorted/morton webp {e['bytes']['sorted']['webp']}/{e['bytes']['morton']['webp']}, same as the CLI: {same}, palette {e.get('sh_palette')}")
PY
echo "== summary"; cat $OUT/runs.txt
