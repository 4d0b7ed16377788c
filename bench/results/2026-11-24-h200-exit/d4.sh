# d4: the polish as one cooperative launch and one pass over the channels
# (after d3). test_gpu in quick mode; bench_sort --runs 5 (median after a
# warm-up) with and without 8 sweeps; pure-sort throughput of 16 lanes of
# 256^2 x 3 (B's grids) and 512^2 x 3 with and without it.
cd .dev && tar xJf libs.tar.xz && cd ..
export LD_LIBRARY_PATH=$PWD/.dev/lib
B=$PWD/.dev/bin; J=$OUT/d4.jsonl; : > $J
( time CUPLAS_TEST_QUICK=1 timeout 400 $B/test_gpu ) > $OUT/d4-test_gpu.txt 2>&1; echo "test_gpu rc $?" >> $OUT/d4-test_gpu.txt
grep -E "PASSED|FAILED|real|rc " $OUT/d4-test_gpu.txt
row() { # label case sets...
  local lab=$1 cs=$2; shift 2; local a=""; for s in "$@"; do a="$a --set $s"; done
  $B/bench_sort --runs 5 $a $cs 2>/dev/null | sed "s/^{/{\"label\":\"$lab\",/" >> $J
}
P=.dev/peer-inputs.h5
for c in $P:/colors_256 $P:/colors_512 $P:/colors_1024 colors:2048x2048 normal:1024x1024x16 normal:2048x2048x16; do
  row pol0 $c sort.polish=0
  row pol8 $c sort.polish=8
done
row pol64 colors:2048x2048 sort.polish=64
row pol8-fast $P:/colors_1024 sort.preset=fast sort.polish=8
row best $P:/colors_1024 sort.preset=best
for c in colors:256x256 colors:512x512; do
  for pol in 0 8; do
    $B/bench_sort --throughput 1024 --lanes 16 --set sort.polish=$pol $c 2>/dev/null | sed "s/^{/{\"label\":\"thr-pol$pol\",/" >> $J
  done
done
python3 - $J <<'PY'
import json,sys
for l in open(sys.argv[1]):
    d=json.loads(l)
    if d.get('mode')=='pure_sort': print("%-10s %-28s %d lanes: %.1f grids/s" % (d['label'], d['case'][-28:], d['lanes'], d['grids_per_s']))
    else: print("%-10s %-28s %8.2f ms AND %.4f passes %d" % (d['label'], d['case'][-28:], d['device_ms'], d['and_after'], d['passes']))
PY
