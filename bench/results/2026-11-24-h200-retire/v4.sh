#!/bin/bash
# v4: auto chunks of 1/16 of a small dataset (>= 256 KiB): one-file 1024^2x3 old (0.4.1) vs new
# vs new with output.chunk_rows=256 (about the old 1 MiB chunks), 5 runs each, interleaved
set -u
cd .dev && tar xJf libs.tar.xz && cd ..
export LD_LIBRARY_PATH=$PWD/.dev/lib
NEW=$PWD/.dev/bin; OLD=$PWD/.dev/old/bin; W=/tmp/v4; mkdir -p $W; cd $W
$NEW/cuplas gen --kind colors --size 1024x1024 c.h5 > /dev/null
for b in old new new256; do bin=$([ $b = old ] && echo $OLD || echo $NEW); $bin/cuplas sort c.h5 w.h5 --force > /dev/null 2>&1; done
for k in 1 2 3 4 5; do for b in old new new256; do
  bin=$([ $b = old ] && echo $OLD || echo $NEW); ex=(); [ $b = new256 ] && ex=(--set output.chunk_rows=256)
  t0=$(date +%s.%N); $bin/cuplas sort c.h5 s-$b.h5 --force --log-format json "${ex[@]}" > $b-$k.log 2>&1; t1=$(date +%s.%N)
  python3 - $b $k $t0 $t1 $b-$k.log s-$b.h5 <<'PY' >> $OUT/v4.jsonl
import json, sys, os
b, k, t0, t1, log, out = sys.argv[1:]
j = [json.loads(l) for l in open(log) if l.startswith('{') and '"job_done"' in l][0]
print(json.dumps({"build": b, "run": int(k), "process_s": round(float(t1) - float(t0), 4),
  "sort_s": j["sort_s"], "write_s": j["write_s"], "encode_s": j["encode_s"], "h5_s": j["h5_s"],
  "gpu_sort_ms": j["gpu_sort_ms"], "bytes": os.path.getsize(out)}))
PY
done; done
h5dump -H -p s-new.h5 | grep -E "DATASET|CHUNKED|SIZE" | head -12 > $OUT/h5dump.txt 2>&1
python3 - $OUT/v4.jsonl <<'PY' | tee $OUT/v4-table.txt
import json, sys, statistics as st
rows = [json.loads(l) for l in open(sys.argv[1])]
for b in ("old", "new", "new256"):
    r = [x for x in rows if x["build"] == b]
    m = lambda k: st.median(x[k] for x in r)
    print("%-7s process median %.3f s %s | write %.4f encode %.4f h5 %.4f sort %.4f | bytes %d" % (
        b, m("process_s"), [x["process_s"] for x in r], m("write_s"), m("encode_s"), m("h5_s"), m("sort_s"), r[0]["bytes"]))
PY
cat $OUT/h5dump.txt
