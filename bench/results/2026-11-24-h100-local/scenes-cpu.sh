#!/bin/bash
# scenes.sh - configs/sog.yaml on the GPU with sort settings on top, then `cuplas eval --scheme
# sog` (PNG zlib 9 all filters, WebP method $WM); sorted/Morton byte ratios per codec.
B=$PWD/.dev/bin; S=$PWD/.dev/scenes; mkdir -p $OUT; J=$OUT/scenes.jsonl; : > $J
W=/tmp/scn; rm -rf $W; mkdir -p $W
for v in ${VARIANTS:-default}; do
  label=${v%%=*}; sets=()
  if [ "$label" != "$v" ]; then IFS=, read -ra kv <<< "${v#*=}"; for s in "${kv[@]}"; do sets+=(--set "sort.$s"); done; fi
  for sc in plant academic_tarot_cards; do
    o=$W/$label-$sc; rm -rf $o
    t0=$(date +%s.%N)
    $B/cuplas run $PWD/.dev/sog.yaml --set "inputs=[{files: \"$S/$sc.splat\"}]" --set "output.dir=$o" --set output.ply=false --set logging.level=warn --set backend.device=cpu "${sets[@]}" > $o.log 2>&1 || { echo "$label $sc run failed"; cat $o.log | tail -3; continue; }
    t1=$(date +%s.%N)
    $B/cuplas eval $o/$sc.vertex.h5 --scheme sog --codecs png,webp --webp-method ${WM:-6} --json > $o.eval.json 2> $o.eval.err || { echo "$label $sc eval failed"; tail -3 $o.eval.err; continue; }
    python3 - "$label" "$sc" $o.eval.json "$t0" "$t1" >> $J <<'PY'
import json, sys, time
label, sc, path, t0, t1 = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]), float(sys.argv[5])
ib = json.load(open(path))["image_bytes"]
r = {c: sum(ib["sorted"][c].values()) / sum(ib["morton"][c].values()) for c in ib["sorted"]}
print(json.dumps({"label": label, "scene": sc, "ratio": r, "sorted_bytes": {c: sum(ib["sorted"][c].values()) for c in ib["sorted"]}, "morton_bytes": {c: sum(ib["morton"][c].values()) for c in ib["morton"]}, "run_s": round(t1 - t0, 2)}))
PY
    tail -1 $J | python3 -c "import json,sys; d=json.loads(sys.stdin.read()); print('%-10s %-22s png %.4f webp %.4f  (run %.1f s)' % (d['label'], d['scene'], d['ratio']['png'], d['ratio']['webp'], d['run_s']))"
  done
done
