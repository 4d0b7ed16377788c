# r15: pure-sort throughput (bench_sort --throughput, ordered lanes) of 0.6.0's default against
# 0.5.x's 4-cell small levels (--set sort.local_group_size=0 sort.local_passes=0 sort.max_configs=4)
# at 256^2, 512^2 (16 lanes) and 1024^2 x 3 (12 lanes): which grid sizes lose throughput.
cd .dev && tar xJf libs.tar.xz && cd ..
export LD_LIBRARY_PATH=$PWD/.dev/lib
B=$PWD/.dev/bin; J=$OUT/r15.jsonl; : > $J
OLD="--set sort.local_group_size=0 --set sort.local_passes=0 --set sort.max_configs=4"
for rep in 1 2; do
for c in "colors:256x256 1024 16" "colors:512x512 256 16" "colors:1024x1024 96 12"; do set -- $c
  $B/bench_sort --throughput $2 --lanes $3 $1 2>/dev/null | sed "s/^{/{\"label\":\"0.6.0\",/" >> $J
  $B/bench_sort --throughput $2 --lanes $3 $OLD $1 2>/dev/null | sed "s/^{/{\"label\":\"0.5-small\",/" >> $J
done; done
echo "== table"
python3 -c "
import json
for l in open('$J'):
    d=json.loads(l); print('%-10s %-18s lanes %2d %8.1f grids/s' % (d['label'], d['case'], d['lanes'], d['grids_per_s']))"
