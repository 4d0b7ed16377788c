#!/bin/bash
# GPU scene sweep: configs/sog.yaml + --set overrides, then cuplas eval --scheme sog (PNG, WebP m6).
export LD_LIBRARY_PATH=$PWD/.dev/lib
B=$PWD/.dev/bin; S=$PWD/.dev/scenes; J=$OUT/scenes.jsonl; : > $J
W=/tmp/scn; rm -rf $W; mkdir -p $W
one() {
  v=$1; sc=$2; label=${v%%=*}; sets=()
  if [ "$label" != "$v" ]; then IFS=';' read -ra kv <<< "${v#*=}"; for s in "${kv[@]}"; do sets+=(--set "$s"); done; fi
  o=$W/$label-$sc; rm -rf $o
  $B/cuplas run $PWD/configs/sog.yaml --set "inputs=[{files: \"$S/$sc.splat\"}]" --set "output.dir=$o" --set output.ply=false --set logging.level=warn "${sets[@]}" > $o.log 2>&1 || { echo "$label $sc run failed: $(tail -2 $o.log)"; return; }
  $B/cuplas eval $o/$sc.vertex.h5 --scheme sog --codecs png,webp --webp-method 6 --json > $o.eval.json 2> $o.eval.err || { echo "$label $sc eval failed"; return; }
  python3 - "$label" "$sc" $o.eval.json >> $J <<'PY'
import json, sys
label, sc, path = sys.argv[1:4]
ib = json.load(open(path))["image_bytes"]
r = {c: sum(ib["sorted"][c].values()) / sum(ib["morton"][c].values()) for c in ib["sorted"]}
print(json.dumps({"label": label, "scene": sc, "ratio": r, "sorted_bytes": {c: sum(ib["sorted"][c].values()) for c in ib["sorted"]}, "morton_bytes": {c: sum(ib["morton"][c].values()) for c in ib["morton"]}, "per_image": ib["sorted"]}))
PY
}
export -f one; export B S W J
for v in "${VARIANTS[@]:-default}"; do :; done
printf '%s\n' "$@" | while read -r v; do for sc in plant academic_tarot_cards; do echo "$v|$sc"; done; done |
  xargs -P 12 -I{} bash -c 'x="{}"; one "${x%%|*}" "${x##*|}"'
python3 - $J <<'PY'
import json, sys, collections
rows = [json.loads(l) for l in open(sys.argv[1])]
by = collections.OrderedDict()
for d in rows: by.setdefault(d["label"], {})[d["scene"]] = d["ratio"]
for l, v in sorted(by.items()):
    p = v.get("plant", {}); t = v.get("academic_tarot_cards", {})
    print("%-14s plant png %.4f webp %.4f | tarot png %.4f webp %.4f" % (l, p.get("png", 0), p.get("webp", 0), t.get("png", 0), t.get("webp", 0)))
PY
