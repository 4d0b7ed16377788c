# d3: sort.polish (the AND polish after the last level). test_gpu in quick
# mode (its new polish parity test included), then bench_sort --runs 3
# (median after a warm-up): best (polish 8) and best without it, default
# with and without 8 sweeps, and 64 sweeps (the fixed point).
cd .dev && tar xJf libs.tar.xz && cd ..
export LD_LIBRARY_PATH=$PWD/.dev/lib
B=$PWD/.dev/bin; J=$OUT/d3.jsonl; : > $J
( time CUPLAS_TEST_QUICK=1 timeout 400 $B/test_gpu ) > $OUT/d3-test_gpu.txt 2>&1; echo "test_gpu rc $?" >> $OUT/d3-test_gpu.txt
tail -3 $OUT/d3-test_gpu.txt
row() { # label case sets...
  local lab=$1 cs=$2; shift 2; local a=""; for s in "$@"; do a="$a --set $s"; done
  $B/bench_sort --runs 3 $a $cs 2>/dev/null | sed "s/^{/{\"label\":\"$lab\",/" >> $J
}
P=.dev/peer-inputs.h5:/colors_1024
for seed in 1337 1 2; do
  row best-pol8 $P sort.preset=best sort.seed=$seed
  row best-pol0 $P sort.preset=best sort.seed=$seed sort.polish=0
done
row best-pol64 $P sort.preset=best sort.polish=64
row best-pol8 colors:2048x2048 sort.preset=best
for seed in 1337 1 2; do
  row default-pol0 $P sort.seed=$seed
  row default-pol8 $P sort.seed=$seed sort.polish=8
done
row default-pol0 colors:2048x2048
row default-pol8 colors:2048x2048 sort.polish=8
row default-pol64 colors:2048x2048 sort.polish=64
row default-pol0 normal:1024x1024x16
row default-pol8 normal:1024x1024x16 sort.polish=8
row default-pol0 .dev/peer-inputs.h5:/colors_256
row default-pol8 .dev/peer-inputs.h5:/colors_256 sort.polish=8
row fast-pol0 $P sort.preset=fast
row fast-pol8 $P sort.preset=fast sort.polish=8
python3 - $J <<'PY'
import json,sys
for l in open(sys.argv[1]):
    d=json.loads(l); print("%-14s %-28s %8.2f ms AND %.4f passes %d" % (d['label'], d['case'][-28:], d['device_ms'], d['and_after'], d['passes']))
PY
