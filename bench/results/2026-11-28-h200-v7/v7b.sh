# v7b: CPU-side timings on the GPU machine's 16 cores, this session's two speed-ups against
# main before them (9f1f4bf: .dev/bin/cuplas-old, .dev/bin/scene_read-old):
#  - `cuplas eval` of tarot's sog.yaml result, --scheme sog --codecs png,webp, WebP m6:
#    all four orders (old and new binary, the same bytes required) and --orders sorted,morton
#    (new); wall time of 3 runs each, OMP_NUM_THREADS=16;
#  - the read of tarot tiled 40 times (4.59M splats, bench/results/2026-11-28-cpu-decpar/
#    tile_splat.py) as .splat: bench/scene_read, median of 7 reads after a warm-up, on 1, 2,
#    4, 8 and 16 threads, old and new (the same grid hash required).
[ -d .dev/bin ] || (cd .dev && tar xJf bin.tar.xz)
source bench/device-lib.sh; dev_setup v7b
nproc | tee $OUT/nproc.txt
$B/cuplas run configs/sog.yaml --set "inputs=[{files: .dev/scenes/academic_tarot_cards.splat}]" --set output.dir=$W/t --set output.ply=false > $W/t.log 2>&1 || tail -3 $W/t.log
f=$(ls $W/t/*.h5)
ev() { # LABEL BIN ARGS...
  local l=$1 b=$2; shift 2
  for r in 1 2 3; do
    t0=$(date +%s.%N); OMP_NUM_THREADS=16 $b eval "$f" --scheme sog --codecs png,webp --json "$@" > $W/$l.$r.json; rc=$?; t1=$(date +%s.%N)
    python3 -c "
import json,sys; d=json.load(open('$W/$l.$r.json'))
print(json.dumps({'label':'eval','case':'$l','run':$r,'rc':$rc,'wall_s':round($t1-$t0,3),'bytes':d['bytes']}))" >> $J
  done
}
ev old $B/cuplas-old
ev new $B/cuplas
ev new_sorted_morton $B/cuplas --orders sorted,morton
python3 bench/results/2026-11-28-cpu-decpar/tile_splat.py .dev/scenes/academic_tarot_cards.splat $W/big.splat 40
ls -la $W/big.splat | tee $OUT/big.txt
for t in 1 2 4 8 16; do
  for v in old new; do
    b=$B/scene_read-$v; [ $v = new ] && b=$B/scene_read
    echo "{\"label\":\"read\",\"case\":\"$v\",\"threads\":$t,\"line\":\"$($b $W/big.splat $t 7 | tail -1)\"}" >> $J
  done
done
echo "== table"
python3 - "$J" <<'PY'
import json, sys, statistics
rows = [json.loads(l) for l in open(sys.argv[1])]
ev = [r for r in rows if r['label'] == 'eval']
for c in ('old', 'new', 'new_sorted_morton'):
    rs = [r for r in ev if r['case'] == c]
    print('eval %-18s wall %s  median %.2f s  rc %s' % (c, [r['wall_s'] for r in rs], statistics.median(r['wall_s'] for r in rs), {r['rc'] for r in rs}))
old = [r['bytes'] for r in ev if r['case'] == 'old'][0]; new = [r['bytes'] for r in ev if r['case'] == 'new'][0]
sm = [r['bytes'] for r in ev if r['case'] == 'new_sorted_morton'][0]
print('bytes old == new:', old == new, '; sorted,morton subset equal:', all(sm[k] == new[k] for k in ('sorted', 'morton')))
for r in rows:
    if r['label'] == 'read': print('read %-4s threads %2d  %s' % (r['case'], r['threads'], r['line']))
PY
