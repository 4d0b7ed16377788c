#!/bin/bash
# v8: whole-process time of the user's jobs on one H200: one 1024^2 x 3 `cuplas sort` per preset
# (fast, default; 5 runs each, interleaved) and the two real 3DGS captures through
# `cuplas run configs/sog.yaml` (HDF5 + sorted PLY, fsync; 3 runs each)
set -u
cd .dev && tar xJf libs.tar.xz && cd ..
export LD_LIBRARY_PATH=$PWD/.dev/lib
B=$PWD/.dev/bin; SRC=$PWD; W=/tmp/v8; rm -rf $W; mkdir -p $W; cd $W
cp $SRC/.dev/*.splat .
$B/cuplas gen --kind colors --size 1024x1024 c.h5 > /dev/null
$B/cuplas sort c.h5 w.h5 --force > /dev/null 2>&1
for k in 1 2 3 4 5; do for p in fast default; do
  t0=$(date +%s.%N); $B/cuplas sort c.h5 s-$p.h5 --force --preset $p --log-format json > $p-$k.log 2>&1; t1=$(date +%s.%N)
  python3 -c "
import json
j=[json.loads(l) for l in open('$p-$k.log') if '\"job_done\"' in l][0]
print('{\"case\":\"one-file\",\"preset\":\"$p\",\"run\":$k,\"process_s\":%.4f,\"sort_s\":%.4f,\"gpu_sort_ms\":%.2f,\"write_s\":%.4f,\"and_after\":%.4f}' % ($t1-$t0, j['sort_s'], j['gpu_sort_ms'], j['write_s'], j['and_after']))" >> $OUT/v8.jsonl
done; done
for s in plant academic_tarot_cards; do for k in 1 2 3; do
  t0=$(date +%s.%N); $B/cuplas run $SRC/configs/sog.yaml --set "inputs=[{files: $W/$s.splat}]" --set output.dir=$W/out-$s --set output.overwrite=overwrite --log-format json > $s-$k.log 2>&1; rc=$?; t1=$(date +%s.%N)
  python3 -c "
import json
j=[json.loads(l) for l in open('$s-$k.log') if '\"job_done\"' in l][0]
print('{\"case\":\"$s\",\"run\":$k,\"rc\":$rc,\"process_s\":%.4f,\"read_s\":%.4f,\"prep_s\":%.4f,\"sort_s\":%.4f,\"gpu_sort_ms\":%.2f,\"write_s\":%.4f,\"and_before\":%.4f,\"and_after\":%.4f}' % ($t1-$t0, j['read_s'], j['prep_s'], j['sort_s'], j['gpu_sort_ms'], j['write_s'], j['and_before'], j['and_after']))" >> $OUT/v8.jsonl
done; done
ls -la $W/out-plant | head; 
python3 - $OUT/v8.jsonl <<'PY' | tee $OUT/v8-table.txt
import json, sys, statistics as st
rows = [json.loads(l) for l in open(sys.argv[1])]
for key in ("fast", "default"):
    r = [x for x in rows if x.get("preset") == key]
    print("one-file 1024^2x3 --preset %-8s process median %.3f s %s, sort %.4f (GPU %.1f ms), write %.4f, AND %.4f" % (
        key, st.median(x["process_s"] for x in r), [x["process_s"] for x in r], st.median(x["sort_s"] for x in r),
        st.median(x["gpu_sort_ms"] for x in r), st.median(x["write_s"] for x in r), r[0]["and_after"]))
for key in ("plant", "academic_tarot_cards"):
    r = [x for x in rows if x.get("case") == key]
    print("%-20s sog.yaml run: process median %.3f s %s; read %.4f prep %.4f sort %.4f (GPU %.1f ms) write %.4f; AND %.3f -> %.3f" % (
        key, st.median(x["process_s"] for x in r), [x["process_s"] for x in r], st.median(x["read_s"] for x in r),
        st.median(x["prep_s"] for x in r), st.median(x["sort_s"] for x in r), st.median(x["gpu_sort_ms"] for x in r),
        st.median(x["write_s"] for x in r), r[0]["and_before"], r[0]["and_after"]))
PY
