# d1: how a process with a CUDA context leaves (return vs cudaDeviceReset vs
# _exit), 7 interleaved rounds; then collection B with the run_timing debug
# event (3 repeats) beside the pure-sort rate.
cd .dev && tar xJf libs.tar.xz && cd ..
export LD_LIBRARY_PATH=$PWD/.dev/lib
B=$PWD/.dev/bin; SRC=$PWD
P=$OUT/probe.jsonl; : > $P
for k in 1 2 3 4 5 6 7; do
  for c in "ctx 0 0 0 exit" "ctx 0 0 0 quick" "lanes 16 64 8 exit" "lanes 16 64 8 reset" "lanes 16 64 8 quick"; do
    for conn in 8 1; do
      t0=$EPOCHREALTIME
      if [ $conn = 1 ]; then l=$(CUDA_DEVICE_MAX_CONNECTIONS=1 $B/startup_probe $c); else l=$($B/startup_probe $c); fi
      t1=$EPOCHREALTIME
      echo "${l%\}},\"conn\":$conn,\"t0\":$t0,\"t1\":$t1}" >> $P
    done
  done
done
( cd $SRC && OUT=$OUT/pipe PIPE_BIN=$B PIPE_ONLY=B PIPE_QUICK=1 PIPE_PURE=1 PIPE_DEFLATE=1 PIPE_FSYNC=true PIPE_LANES_A=0 PIPE_LANES_B=0 PIPE_REPEAT=3 PIPE_EXTRA="--set logging.level=debug" bash scripts/pipeline-bench.sh > $OUT/pipe.txt 2>&1 )
cp /tmp/cuplas-pipe/logs/run-B*.log $OUT/ 2>/dev/null
echo "== probe (median s: process, end0->end1, after the last stamp)"
python3 - $P <<'PY'
import json,sys,statistics as st
from collections import defaultdict
g=defaultdict(list)
for l in open(sys.argv[1]):
    d=json.loads(l); g[(d['mode'],d['lanes'],d['end'],d['conn'])].append(d)
for k,v in g.items():
    proc=st.median(x['t1']-x['t0'] for x in v)
    end=st.median(x['t_end1']-x['t_end0'] for x in v) if v[0]['t_end0'] else 0
    tail=st.median(x['t1']-max(x['t_end1'],x['t_ctx']) for x in v)
    print("%-6s lanes %-2d end %-6s conn %d: process %.3f  end-call %.3f  after %.3f" % (k[0],k[1],k[2],k[3],proc,end,tail))
PY
echo "== B"
grep -h '"run"\|pure_sort' $OUT/pipe/pipeline.jsonl
for f in $OUT/run-B*.log; do grep -h run_timing $f | python3 -c "import json,sys; d=json.loads(sys.stdin.read()); print('$(basename $f)', {k:round(v,3) for k,v in d.items() if k.endswith('_s')})"; done
