# d5: the polish with 2x3 / 3x2 windows (sort.polish_cells 6, best's) and
# the reordered sweep. test_gpu quick; bench_sort (median after a
# warm-up; --runs 3 for best, 5 otherwise); 16 lanes of 256^2 x 3.
cd .dev && tar xJf libs.tar.xz && cd ..
export LD_LIBRARY_PATH=$PWD/.dev/lib
B=$PWD/.dev/bin; J=$OUT/d5.jsonl; : > $J
( time CUPLAS_TEST_QUICK=1 timeout 400 $B/test_gpu ) > $OUT/d5-test_gpu.txt 2>&1; echo "test_gpu rc $?" >> $OUT/d5-test_gpu.txt
grep -E "PASSED|FAILED|real|rc " $OUT/d5-test_gpu.txt
row() { # label runs case sets...
  local lab=$1 runs=$2 cs=$3; shift 3; local a=""; for s in "$@"; do a="$a --set $s"; done
  $B/bench_sort --runs $runs $a $cs 2>/dev/null | sed "s/^{/{\"label\":\"$lab\",/" >> $J
}
P=.dev/peer-inputs.h5
for seed in 1337 1 2; do row best 3 $P:/colors_1024 sort.preset=best sort.seed=$seed; done
row best-c4 3 $P:/colors_1024 sort.preset=best sort.polish_cells=4
row best 3 colors:2048x2048 sort.preset=best
row best 3 normal:1024x1024x16 sort.preset=best
row best 3 $P:/colors_256 sort.preset=best
row best 3 $P:/colors_512 sort.preset=best
for c in $P:/colors_256 $P:/colors_512 $P:/colors_1024 colors:2048x2048 normal:1024x1024x16; do
  row default 5 $c
  row default-c6 5 $c sort.polish_cells=6
done
for seed in 1 2; do row default 5 $P:/colors_1024 sort.seed=$seed; row default-c6 5 $P:/colors_1024 sort.seed=$seed sort.polish_cells=6; done
row default 3 colors:4096x4096
row fast 5 $P:/colors_1024 sort.preset=fast
for c in 4 6; do
  $B/bench_sort --throughput 1024 --lanes 16 --set sort.polish_cells=$c colors:256x256 2>/dev/null | sed "s/^{/{\"label\":\"thr-c$c\",/" >> $J
done
python3 - $J <<'PY'
import json,sys
for l in open(sys.argv[1]):
    d=json.loads(l)
    if d.get('mode')=='pure_sort': print("%-10s %-28s %d lanes: %.1f grids/s" % (d['label'], d['case'][-28:], d['lanes'], d['grids_per_s']))
    else: print("%-10s %-28s %8.2f ms AND %.4f passes %d" % (d['label'], d['case'][-28:], d['device_ms'], d['and_after'], d['passes']))
PY
