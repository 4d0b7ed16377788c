#!/bin/bash
# t9: 0.5.0 as committed (the wide row: group_size 16, max_passes 1,
# improvement_break 1e-2): the wide row's GPU parity, bench_sort of the
# default on narrow and wide grids, two real captures through
# configs/sog.yaml as whole processes, and the big grids as processes.
cd .dev && tar xJf libs.tar.xz && cd ..; export LD_LIBRARY_PATH=$PWD/.dev/lib
B=$PWD/.dev/bin P=$PWD/.dev/peer-inputs.h5; J=$OUT/t9.jsonl; : > $J
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
for t in test_gpu_sort_parity_channels test_gpu_sort_parity_groups; do
    t0=$(date +%s); CUPLAS_TEST_FILTER=$t timeout 200 $B/test_gpu > $OUT/$t.txt 2>&1; rc=$?
    echo "$t rc=$rc $(( $(date +%s) - t0 )) s: $(grep -E '^\[  (PASSED|FAILED)' $OUT/$t.txt | tr '\n' ' ')"
done
timeout 150 $B/bench_sort --runs 5 $P:/colors_1024 normal:1024x1024x8 normal:1024x1024x16 normal:1024x1024x32 2>&1 | grep '^{' >> $J
timeout 100 $B/bench_sort --runs 3 normal:2048x2048x16 2>&1 | grep '^{' >> $J
python3 - $J <<'PY'
import json, sys
for l in open(sys.argv[1]):
    d = json.loads(l)
    print("%-22s k=%-2d %8.1f ms  AND %.4f  passes %4d" % (d["case"][-22:], d["group"], d["device_ms"], d["and_after"], d["passes"]))
PY
W=/tmp/t9; rm -rf $W; mkdir -p $W
for sc in plant; do
    for k in 0 1 2 3 4 5; do   # run 0: warm-up (page cache, driver)
        rm -rf $W/out; s=$(date +%s.%N)
        $B/cuplas run configs/sog.yaml --set "inputs=[{files: \"$PWD/.dev/$sc.splat\"}]" --set output.dir=$W/out \
            --set logging.level=warn > $W/$sc-$k.log 2>&1; rc=$?
        e=$(date +%s.%N); echo "{\"part\":\"scene\",\"scene\":\"$sc\",\"run\":$k,\"rc\":$rc,\"wall_s\":$(awk "BEGIN{print $e - $s}")}" >> $OUT/t9-scenes.jsonl
    done
done
python3 - $OUT/t9-scenes.jsonl <<'PY'
import json, sys, statistics
rows = [json.loads(l) for l in open(sys.argv[1])]
for sc in ("plant",):
    w = [r["wall_s"] for r in rows if r["scene"] == sc and r["run"] > 0]
    print("%-22s process median %.3f s (%s) rc %s" % (sc, statistics.median(w), " ".join("%.3f" % x for x in w), {r["rc"] for r in rows if r["scene"] == sc}))
PY
OUT=$OUT/big LV_PARTS=big LV_BIG="4096 8192" bash bench/levers-device.sh 2>&1 | tail -4
