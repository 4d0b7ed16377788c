# d2: `best` rows at 1024^2 x 3 (issue 16: AND <= 2.984 in <= 2 s), 0.6.0's
# bench_sort, --runs 1 after its warm-up, seeds 1337 and 1.
cd .dev && tar xJf libs.tar.xz && cd ..
export LD_LIBRARY_PATH=$PWD/.dev/lib
B=$PWD/.dev/bin; J=$OUT/d2.jsonl; : > $J
row() { # label sets...
  local lab=$1; shift; local a=""; for s in "$@"; do a="$a --set $s"; done
  for seed in 1337 1; do
    timeout 120 $B/bench_sort --runs 1 --set sort.preset=best --set sort.seed=$seed $a .dev/peer-inputs.h5:/colors_1024 2>/dev/null | sed "s/^{/{\"label\":\"$lab\",\"seed\":$seed,/" >> $J
  done
}
row b0
row b1-k16 sort.group_size=16
row b2-k16p2 sort.group_size=16 sort.max_passes=2
row b3-k16p1c4 sort.group_size=16 sort.max_passes=1 sort.max_configs=4
row b4-k16p2c4d98 sort.group_size=16 sort.max_passes=2 sort.max_configs=4 sort.radius_decay=0.98
row b5-lc16k sort.local_cells=16384
row b6-lc64k sort.local_cells=65536
row b7-k16p1ib3 sort.group_size=16 sort.max_passes=1 sort.improvement_break=1e-3
row b8-k8p2 sort.group_size=8 sort.max_passes=2
row b9-lc16k-lp1 sort.local_cells=16384 sort.local_passes=1
python3 - $J <<'PY'
import json,sys
for l in open(sys.argv[1]):
    d=json.loads(l); print("%-16s seed %-5d %8.1f ms AND %.4f passes %d" % (d['label'], d['seed'], d['device_ms'], d['and_after'], d['passes']))
PY
