#!/bin/bash
# ramp-device.sh - EXPERIMENT: passes (and configurations) per level ramped from coarse to fine
# levels (CUPLAS_RAMP="coarse:fine[:cfg_coarse:cfg_fine]", a getenv in core/level.h of this build
# only). bench_sort --runs 1 per case; JSON lines in $OUT/ramp.jsonl, a table last.
export LD_LIBRARY_PATH=$PWD/.dev/lib; B=$PWD/.dev/bin; P=$PWD/.dev/peer-inputs.h5; J=$OUT/ramp.jsonl; : > $J
for v in ${RAMPS:-none}; do
  r=$v; [ "$v" = none ] && r=
  for seed in ${SEEDS:-1337 1 2 3}; do
    CUPLAS_RAMP=$r $B/bench_sort --runs 1 --set sort.seed=$seed $P:/colors_1024 2>/dev/null | sed "s/^{/{\"ramp\":\"$v\",\"seed\":$seed,/" >> $J
  done
  CUPLAS_RAMP=$r $B/bench_sort --runs 1 ${CASES:-colors:2048x2048 normal:1024x1024x16} 2>/dev/null | sed "s/^{/{\"ramp\":\"$v\",\"seed\":1337,/" >> $J
done
python3 - $J <<'PY'
import json, sys, statistics
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith('{')]
lab = {}
for d in rows: lab.setdefault(d["ramp"], []).append(d)
for l, v in lab.items():
    c = [d for d in v if d["case"].endswith("colors_1024")]; o = [d for d in v if not d["case"].endswith("colors_1024")]
    print("%-12s c1024 %s med %.4f %.1f ms passes %d | %s" % (l, " ".join("%.4f" % d["and_after"] for d in c),
          statistics.median([d["and_after"] for d in c]), statistics.median([d["device_ms"] for d in c]), c[0]["passes"],
          " ".join("%s %.4f %.0f ms" % (d["case"].split(":")[0][:6], d["and_after"], d["device_ms"]) for d in o)))
PY
