#!/usr/bin/env bash
# scene_bytes_sweep.sh - one lever setting of the SOG preset, measured in
# bytes (issue 16, "Scenes: beat Morton in bytes"): sort a scene with
# configs/sog.yaml plus --set overrides, then `cuplas eval --scheme sog`,
# and print sorted/Morton byte ratios per codec and each image's bytes
# (sorted/Morton, in thousands) from eval's image_bytes.
#
# Usage: bench/scene_bytes_sweep.sh SCENE NAME [--set key=value ...]
#   SCENE   a .splat or .ply file; NAME: a label and the output folder
#           $OUT/NAME (OUT defaults to bench/results/scene-bytes)
#   CODECS  codecs (default png,webp); WEBP_METHOD (default 2: about 1 s
#           for the four orders of a 337^2 scene, where method 6 takes
#           ~35 s of CPU an order; method 2 ranks settings the same way in
#           our sweep, within ~0.5 % of 6's ratio); THREADS (default 1)
# Images whose name starts with "extra" (channels a scheme does not know,
# e.g. helper channels added for an experiment) are left out of the ratio.
# Run from the build folder (needs ./cuplas and python3).
set -euo pipefail
[ $# -ge 2 ] || { sed -n 2,18p "$0"; exit 2; }
scene=$1 name=$2
shift 2
src=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-bench/results/scene-bytes}/$name
stem=$(basename "$scene"); stem=${stem%.*}
rm -rf "$out"
mkdir -p "$out"
OMP_NUM_THREADS=${THREADS:-1} ./cuplas run "$src/configs/sog.yaml" \
    --set "inputs=[{files: \"$scene\"}]" --set "output.dir=$out" --set output.ply=false \
    --set backend.device=cpu --set logging.level=warn "$@" >/dev/null
OMP_NUM_THREADS=${THREADS:-1} ./cuplas eval "$out/$stem.vertex.h5" --scheme sog \
    --codecs "${CODECS:-png,webp}" --webp-method "${WEBP_METHOD:-2}" --json >"$out/eval.json"
python3 - "$name" "$out/eval.json" <<'PY'
import json, sys
name, path = sys.argv[1], sys.argv[2]
ib = json.load(open(path))["image_bytes"]
parts, per = [], []
for codec in ib["sorted"]:
    s = {k: v for k, v in ib["sorted"][codec].items() if not k.startswith("extra")}
    m = {k: v for k, v in ib["morton"][codec].items() if not k.startswith("extra")}
    parts.append(f"{codec} {sum(s.values()) / sum(m.values()):.4f}")
    per.append(codec + " " + " ".join(f"{k}:{s[k] // 1000}/{m[k] // 1000}" for k in s))
print(f"{name:24s} sorted/Morton {'  '.join(parts)}   |  " + "  |  ".join(per))
PY
