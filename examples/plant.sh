#!/bin/bash
# plant.sh - a real 3DGS capture end to end with one command: sort the plant
# scene (113,648 splats, antimatter15 .splat) with SOG's own channels and
# transforms (configs/sog.yaml adds the rotation and weights tuned for
# compressed bytes), on a padded auto grid, and write both the HDF5
# result and the sorted scene as a graphdeco PLY.
#
# Scene: "plant" by Marcel Padilla (github.com/marcelpadilla/splats),
# CC-BY-4.0 (shared/data/README.md). Usage: examples/plant.sh [OUTDIR]
# (run from the build folder; about 20 s on 2 CPU cores, a GPU is faster).
set -euo pipefail
BIN=${CUPLAS_BUILDDIR:-$PWD}/cuplas
SCENE=${PLANT:-$(cd "$(dirname "$0")/.." && pwd)/../shared/data/scenes/plant.splat}
OUT=${1:-plant-out}
mkdir -p "$OUT"
"$BIN" sort "$SCENE" "$OUT/plant.h5" --ply "$OUT/plant_sorted.ply" --force \
    --channels x,y,z,f_dc_0-2,scale_0-2 --normalize standardize \
    --set 'channels.exp=["scale_*"]' --set 'channels.groups=["x,y,z","f_dc_0-2","scale_0-2"]' \
    --grid auto --fit pad --log-format text
echo "plant: $OUT/plant.h5 (index, sorted, channel_names) and $OUT/plant_sorted.ply"
