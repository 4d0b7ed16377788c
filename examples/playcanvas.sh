#!/bin/bash
# playcanvas.sh - a real capture to a PlayCanvas SOG with one command:
# sort the plant scene with configs/playcanvas.yaml (tuned for that
# format's images; its eval block measures them against splat-transform's
# Morton order), whose sog step writes the SOG (meta.json and five lossless
# WebP images) in cuplas's order beside the result.
#
# Scene: "plant" by Marcel Padilla (github.com/marcelpadilla/splats),
# CC-BY-4.0 (shared/data/README.md). Usage: examples/playcanvas.sh [OUTDIR]
# (run from the build folder; 61 s on 2 CPU cores, most of it the eval's
# WebP at method 6; EVAL=0 skips the eval: 12 s, the SOG at method 2 in
# 0.3 s of it).
set -euo pipefail
BIN=${CUPLAS_BUILDDIR:-$PWD}/cuplas
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SCENE=${PLANT:-$ROOT/../shared/data/scenes/plant.splat}
OUT=${1:-playcanvas-out}
EVAL=${EVAL:-1}
[ "$EVAL" = 1 ] && ev=true || ev=false
"$BIN" run "$ROOT/configs/playcanvas.yaml" --set "inputs=[{files: \"$SCENE\"}]" \
    --set "output.dir=$OUT" --set output.ply=false --set "eval.enabled=$ev" \
    --log-format text --force
du -b "$OUT"/plant.vertex.sog/* | sort -k2
