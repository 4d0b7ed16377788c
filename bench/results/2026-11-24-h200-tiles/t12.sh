#!/bin/bash
# t12: the two captures through 0.5.0's configs/sog.yaml (16-cell groups,
# 0.2.0's schedule) as whole GPU processes, HDF5 and PLY out: median of 5
# after a warm-up; the job's stages from the JSON log.
cd .dev && tar xJf libs.tar.xz && cd ..; export LD_LIBRARY_PATH=$PWD/.dev/lib
B=$PWD/.dev/bin W=/tmp/t12; rm -rf $W; mkdir -p $W; J=$OUT/t12-scenes.jsonl; : > $J
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
for sc in plant academic_tarot_cards; do
    for k in 0 1 2 3 4 5; do
        rm -rf $W/out; s=$(date +%s.%N)
        $B/cuplas run configs/sog.yaml --set "inputs=[{files: \"$PWD/.dev/$sc.splat\"}]" --set output.dir=$W/out \
            --log-format json > $W/$sc-$k.log 2>&1; rc=$?
        e=$(date +%s.%N)
        job=$(grep '"event":"job_done"' $W/$sc-$k.log | tail -1); [ -n "$job" ] || job=null
        echo "{\"scene\":\"$sc\",\"run\":$k,\"rc\":$rc,\"wall_s\":$(awk "BEGIN{print $e - $s}"),\"job\":$job}" >> $J
    done
done
python3 - $J <<'PY'
import json, sys, statistics
rows = [json.loads(l) for l in open(sys.argv[1])]
for sc in ("plant", "academic_tarot_cards"):
    r = [x for x in rows if x["scene"] == sc and x["run"] > 0]
    w = [x["wall_s"] for x in r]
    g = [x["job"]["gpu_sort_ms"] for x in r if x["job"]]
    a = r[-1]["job"]["and_after"] if r[-1]["job"] else None
    print("%-22s process median %.3f s (%s), GPU sort median %.1f ms, AND %s, rc %s" % (sc, statistics.median(w), " ".join("%.3f" % x for x in w), statistics.median(g) if g else -1, a, {x["rc"] for x in r}))
PY
