# r10: 0.6.0 default figures (bench_sort, median of 5 after a warm-up; 4096^2 median of 3)
# and one 1024^2 x 3 `cuplas sort` as a whole process (5 runs).
cd .dev && tar xJf libs.tar.xz && cd ..
export LD_LIBRARY_PATH=$PWD/.dev/lib
B=$PWD/.dev/bin; J=$OUT/r10.jsonl; : > $J; P=.dev/peer-inputs.h5; W=/tmp/r10w; rm -rf $W; mkdir -p $W
for s in 1337 1 2; do $B/bench_sort --runs 5 --set sort.seed=$s $P:/colors_1024 2>/dev/null | sed "s/^{/{\"seed\":$s,/" >> $J; done
$B/bench_sort --runs 5 $P:/colors_256 $P:/colors_512 colors:2048x2048 normal:1024x1024x16 normal:2048x2048x16 2>/dev/null | sed 's/^{/{"seed":1337,/' >> $J
$B/bench_sort --runs 3 colors:4096x4096 2>/dev/null | sed 's/^{/{"seed":1337,/' >> $J
$B/cuplas gen --kind colors --size 1024x1024 $W/c.h5 >/dev/null; $B/cuplas sort $W/c.h5 $W/w.h5 --force >/dev/null 2>&1
for k in 1 2 3 4 5; do t0=$(date +%s.%N); $B/cuplas sort $W/c.h5 $W/s.h5 --force > /dev/null 2>&1; t1=$(date +%s.%N)
  python3 -c "print('{\"part\":\"one\",\"process_s\":%.4f}' % ($t1-$t0))" >> $J; done
echo "== table"
python3 - $J <<'PY'
import json,sys,statistics as st
rows=[json.loads(l) for l in open(sys.argv[1])]
for d in rows:
    if d.get('part')=='one': continue
    print('%-30s seed %5d %9.1f ms AND %.4f passes %d' % (d['case'][-30:], d['seed'], d['device_ms'], d['and_after'], d['passes']))
o=[d['process_s'] for d in rows if d.get('part')=='one']
print('one-file process median %.3f %s' % (st.median(o), o))
PY
