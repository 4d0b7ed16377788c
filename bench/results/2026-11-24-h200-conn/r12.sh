# r12: 0.6.0's best (two passes of 16-cell groups on the small levels): bench_sort --runs 3
# (median) on the presets table's cases; GPU vs CPU bytes of `cuplas sort --preset best`.
cd .dev && tar xJf libs.tar.xz && cd ..
export LD_LIBRARY_PATH=$PWD/.dev/lib
B=$PWD/.dev/bin; J=$OUT/r12.jsonl; : > $J; P=.dev/peer-inputs.h5; W=/tmp/r12w; rm -rf $W; mkdir -p $W/gpu $W/cpu
$B/cuplas gen --kind colors --size 256x256 $W/c.h5 >/dev/null; $B/cuplas gen --kind normal --size 128x128 --channels 16 $W/n.h5 >/dev/null
for g in c n; do for be in gpu cpu; do $B/cuplas sort $W/$g.h5 $W/$be/$g.h5 --preset best --backend $be --force >/dev/null 2>&1 || echo "sort $g $be failed"; done; done
$B/cmp_outputs $W/gpu $W/cpu | tee $OUT/r12-parity.txt
for s in 1337 1 2; do $B/bench_sort --runs 3 --set sort.preset=best --set sort.seed=$s $P:/colors_1024 2>/dev/null | sed "s/^{/{\"seed\":$s,/" >> $J; done
$B/bench_sort --runs 3 --set sort.preset=best $P:/colors_256 $P:/colors_512 colors:2048x2048 normal:1024x1024x16 2>/dev/null | sed 's/^{/{"seed":1337,/' >> $J
$B/bench_sort --runs 1 --set sort.preset=best normal:2048x2048x16 2>/dev/null | sed 's/^{/{"seed":1337,/' >> $J
echo "== table"; cat $OUT/r12-parity.txt
python3 - $J <<'PY'
import json,sys
for l in open(sys.argv[1]):
    d=json.loads(l); print('%-30s seed %5d %9.1f ms AND %.4f passes %d' % (d['case'][-30:], d['seed'], d['device_ms'], d['and_after'], d['passes']))
PY
