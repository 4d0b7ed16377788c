#!/bin/bash
# ev.sh FILE NAME : sog eval, ratio line
f=$1; name=$2; M=${WM:-2}
OMP_NUM_THREADS=${T:-2} ${CUPLAS:-./cuplas} eval "$f" --scheme sog --codecs png,webp --webp-method $M --json > ${OUTDIR:-.}/$name.eval.json
python3 - "$name" ${OUTDIR:-.}/$name.eval.json <<'PY'
import json, sys
name, path = sys.argv[1], sys.argv[2]
ib = json.load(open(path))["image_bytes"]
parts, per = [], []
for codec in ib["sorted"]:
    [ib[o][codec].pop(k) for o in ("sorted","morton") for k in list(ib[o][codec]) if k.startswith("extra")]
    s = ib["sorted"][codec]; m = ib["morton"][codec]
    parts.append(f"{codec} {sum(s.values()) / sum(m.values()):.4f}")
    per.append(codec + " " + " ".join(f"{k}:{s[k] // 1000}/{m[k] // 1000}" for k in s))
print(f"{name:24s} sorted/Morton {'  '.join(parts)}   |  " + "  |  ".join(per))
PY
