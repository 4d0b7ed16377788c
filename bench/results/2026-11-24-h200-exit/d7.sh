# d7: 0.7.0 as committed (1232394): the whole test_gpu (not quick), one-file
# `cuplas sort` of 1024^2 x 3 (7 runs), and collections A and B with the
# default config (deflate 1 + shuffle, fsync; lanes by grid size) beside
# pure sort, as r16.
cd .dev && tar xJf libs.tar.xz && cd ..
export LD_LIBRARY_PATH=$PWD/.dev/lib
B=$PWD/.dev/bin; SRC=$PWD
( time timeout 420 $B/test_gpu ) > $OUT/d7-test_gpu.txt 2>&1; echo "test_gpu rc $?" >> $OUT/d7-test_gpu.txt
grep -E "PASSED|FAILED|real|rc " $OUT/d7-test_gpu.txt
W=/tmp/d7w; rm -rf $W; mkdir -p $W
$B/cuplas gen --kind colors --size 1024x1024 $W/c.h5 >/dev/null; $B/cuplas sort $W/c.h5 $W/w.h5 --force >/dev/null 2>&1
for k in 1 2 3 4 5 6 7; do t0=$(date +%s.%N); $B/cuplas sort $W/c.h5 $W/s.h5 --force > /dev/null 2>&1; t1=$(date +%s.%N)
  python3 -c "print('{\"part\":\"one\",\"process_s\":%.4f}' % ($t1-$t0))" >> $OUT/d7-one.jsonl; done
( cd $SRC && OUT=$OUT/pipe PIPE_BIN=$B PIPE_QUICK=1 PIPE_PURE=1 PIPE_DEFLATE=1 PIPE_FSYNC=true PIPE_LANES_A=0 PIPE_LANES_B=0 bash scripts/pipeline-bench.sh > $OUT/d7-pipe.txt 2>&1 )
echo "== table"
python3 - $OUT/pipe/pipeline.jsonl $OUT/d7-one.jsonl <<'PY'
import json,sys,statistics as st
for l in open(sys.argv[1]):
    d=json.loads(l)
    if "run" in d: print("pipe %-6s whole %s grids/s, steady %s (rc %s), run %s" % (d["run"], d["grids_per_s"], d["grids_per_s_steady"], d["rc"], d["grids_per_s_run"]))
    elif d.get("mode") == "pure_sort": print("pure %-24s lanes %d: %.1f grids/s" % (d["case"], d["lanes"], d["grids_per_s"]))
    elif "check" in d: print(d["check"], d["result"])
o=[json.loads(l)['process_s'] for l in open(sys.argv[2])]
print('one-file median %.3f %s' % (st.median(o), o))
PY
