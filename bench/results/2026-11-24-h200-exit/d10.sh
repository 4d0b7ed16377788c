# d10: 8192^2 x 16 still sorts with 0.7.0's default (the polish on), and
# its device memory: bench_sort --runs 1 (after its warm-up).
cd .dev && tar xJf libs.tar.xz && cd ..
export LD_LIBRARY_PATH=$PWD/.dev/lib
B=$PWD/.dev/bin
( nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 200 > $OUT/d10-mem.txt & echo $! > /tmp/smi.pid )
timeout 280 $B/bench_sort --runs 1 normal:8192x8192x16 > $OUT/d10.jsonl 2> $OUT/d10-err.txt; echo "rc $?"
kill $(cat /tmp/smi.pid)
python3 -c "
import json
for l in open('$OUT/d10.jsonl'):
    d=json.loads(l); print(d['case'], round(d['device_ms'],1), 'ms AND', d['and_after'], 'bytes/cell', d.get('bytes_per_cell'))
m=[int(x) for x in open('$OUT/d10-mem.txt') if x.strip().isdigit()]
print('peak device MiB used', max(m) if m else None)"
