# r5: GPU vs CPU bytes of `cuplas sort` (new build, cmp_outputs: index and sorted datasets),
# then collections A and B with the default config (scripts/pipeline-bench.sh as t10), with
# the driver's default 8 hardware queues and again with CUDA_DEVICE_MAX_CONNECTIONS=2 and 1
# for the whole process (inputs kept; pure sort measured with the default only).
cd .dev && tar xJf libs.tar.xz && cd ..
export LD_LIBRARY_PATH=$PWD/.dev/lib
B=$PWD/.dev/bin; W=/tmp/r5w; rm -rf $W; mkdir -p $W/gpu $W/cpu
$B/cuplas gen --kind colors --size 512x512 $W/p3.h5 >/dev/null
$B/cuplas gen --kind normal --size 256x256 --channels 16 $W/p16.h5 >/dev/null
for g in p3 p16; do for be in gpu cpu; do $B/cuplas sort $W/$g.h5 $W/$be/$g.h5 --force --backend $be > $W/$be-$g.log 2>&1 || echo "sort $g $be failed"; done; done
$B/cmp_outputs $W/gpu $W/cpu | tee $OUT/parity.txt
which h5dump >> $OUT/parity.txt 2>&1 || echo "no h5dump on this machine" >> $OUT/parity.txt
SRC=$PWD
run_pipe() { # label conn extra-env...
  ( cd $SRC && OUT=$OUT/pipe-$1 PIPE_BIN=$B PIPE_QUICK=1 PIPE_DEFLATE=1 PIPE_FSYNC=true PIPE_LANES_A=0 PIPE_LANES_B=0 "${@:2}" bash scripts/pipeline-bench.sh > $OUT/pipe-$1.txt 2>&1 )
  summ $1
}
summ() { python3 - $OUT/pipe-$1/pipeline.jsonl $1 <<'PY'
import json,sys
for l in open(sys.argv[1]):
    d=json.loads(l)
    if "run" in d: print("%s pipe %-6s lanes %-2s whole %s grids/s, steady %s (rc %s)" % (sys.argv[2], d["run"], d["lanes"], d["grids_per_s"], d["grids_per_s_steady"], d["rc"]))
    elif d.get("mode") == "pure_sort": print("%s pure %-24s lanes %d: %.1f grids/s" % (sys.argv[2], d["case"], d["lanes"], d["grids_per_s"]))
PY
}
run_pipe c8 env PIPE_PURE=1
run_pipe c2 env PIPE_KEEP=1 CUDA_DEVICE_MAX_CONNECTIONS=2
run_pipe c1 env PIPE_KEEP=1 CUDA_DEVICE_MAX_CONNECTIONS=1
echo "== table"; cat $OUT/parity.txt; for l in c8 c2 c1; do summ $l; done
