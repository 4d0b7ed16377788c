#!/bin/sh
# eval_report.sh - what sorting buys, end to end: sort, eval, preview,
# report. Writes into OUT (default ./eval-demo):
#   OUT/out/*.h5, *.png, cuplas-manifest.json   run with eval + preview
#   OUT/eval.json, OUT/imgs/ORDER/*             cuplas eval --json --images
#   OUT/report.html                             cuplas report --html
#
#   examples/eval_report.sh [OUT] [INPUT.h5]
#
# Without INPUT it sorts 3DGS-like synthetic attributes (`cuplas gen
# --kind gaussians`: no channel names, so the plain scheme). A real
# capture goes the same way: pass its PLY or .splat as INPUT and set
# SCHEME=sog (e.g. shared/data/scenes/plant.splat; every property then
# drives the sort: configs/sog.yaml has the tuned channels).
set -eu
OUT=${1:-eval-demo}
IN=${2:-}
B=${CUPLAS:-${CUPLAS_BUILDDIR:-.}/cuplas}
SCHEME=${SCHEME:-plain}
mkdir -p "$OUT"
if [ -z "$IN" ]; then
    IN=$OUT/gaussians.h5
    "$B" gen --kind gaussians --size 64x64 --seed 3 "$IN"
fi
cat >"$OUT/run.yaml" <<YAML
inputs: [{files: $IN}]
output: {dir: $OUT/out, preview: true, overwrite: overwrite}
eval: {enabled: true, codecs: [png, webp], scheme: $SCHEME}
backend: {device: auto, cpu_fallback: true}
YAML
"$B" run "$OUT/run.yaml" --log-format text
res=$(ls "$OUT"/out/*.h5 | head -1)
rm -rf "$OUT/imgs"
"$B" eval "$res" --codecs png,webp,jxl --scheme "$SCHEME" --images "$OUT/imgs" --json >"$OUT/eval.json"
"$B" eval "$res" --codecs png,webp,jxl --scheme "$SCHEME"
"$B" preview "$res" "$OUT/preview.png"
"$B" report "$OUT/out" --html "$OUT/report.html"
echo "open $OUT/report.html (self-contained; scripts/report-screenshot.sh renders it)"
