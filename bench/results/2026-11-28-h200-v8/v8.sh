# v8: eval's WebP second thread (965a308) against main before it (ccbb565, .dev/bin/cuplas-old)
# on the 16 cores: `cuplas eval` of tarot's sog.yaml result (sorted on the GPU here),
# --scheme sog --codecs png,webp, WebP m6, OMP_NUM_THREADS=16, all four orders and
# --orders sorted,morton, wall time of 3 runs each; the same bytes required. Also both
# captures through sog.yaml on the GPU (the lane code's give_back moved under HAVE_CUDA).
[ -d .dev/bin ] || (cd .dev && tar xJf bin.tar.xz)
source bench/device-lib.sh; dev_setup v8
nproc | tee $OUT/nproc.txt
for s in plant academic_tarot_cards; do
  $B/cuplas run configs/sog.yaml --set "inputs=[{files: .dev/scenes/$s.splat}]" --set output.dir=$W/$s --set output.ply=false > $W/$s.log 2>&1 || { echo "$s run failed"; tail -3 $W/$s.log; }
  grep -h '"event":"summary"' $W/$s.log | python3 -c "import json,sys; d=json.loads(sys.stdin.read()); print('$s', d['msg'])" | tee -a $OUT/runs.txt
done
f=$(ls $W/academic_tarot_cards/*.h5)
evl() { # LABEL BIN ARGS...
  local l=$1 b=$2; shift 2
  for r in 1 2 3; do
    t0=$(date +%s.%N); OMP_NUM_THREADS=16 $b eval "$f" --scheme sog --codecs png,webp --json "$@" > $W/$l.$r.json; rc=$?; t1=$(date +%s.%N)
    python3 -c "
import json; d=json.load(open('$W/$l.$r.json'))
print(json.dumps({'label':'eval','case':'$l','run':$r,'rc':$rc,'wall_s':round($t1-$t0,3),'bytes':d['bytes']}))" >> $J
  done
}
evl old $B/cuplas-old
evl new $B/cuplas
evl old_sm $B/cuplas-old --orders sorted,morton
evl new_sm $B/cuplas --orders sorted,morton
echo "== table"
python3 - "$J" <<'PY'
import json, sys, statistics
rows = [json.loads(l) for l in open(sys.argv[1])]
for c in ('old', 'new', 'old_sm', 'new_sm'):
    rs = [r for r in rows if r['case'] == c]
    print('eval %-7s wall %s  median %.2f s  rc %s' % (c, [r['wall_s'] for r in rs], statistics.median(r['wall_s'] for r in rs), {r['rc'] for r in rs}))
b = {c: [r['bytes'] for r in rows if r['case'] == c] for c in ('old', 'new', 'old_sm', 'new_sm')}
print('bytes: old runs equal', all(x == b['old'][0] for x in b['old']), '; new == old', all(x == b['old'][0] for x in b['new']),
      '; subsets equal', all(x[k] == b['old'][0][k] for x in b['old_sm'] + b['new_sm'] for k in ('sorted', 'morton')))
o = b['new'][0]
print('tarot sorted/morton  png %.4f  webp %.4f' % (o['sorted']['png'] / o['morton']['png'], o['sorted']['webp'] / o['morton']['webp']))
PY
