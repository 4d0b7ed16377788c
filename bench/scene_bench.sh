#!/usr/bin/env bash
# scene_bench.sh - the plant scene end to end (issue 14's benchmark):
# read, sort and write times from cuplas's job_done event, and the AND of
# the 9 SOG channels (standardised by group, exp scales) for the sorted
# grid against the file order and a Morton order of x,y,z on the same grid
# (bench/scene_eval). Also the pad-versus-crop check: the AND over the
# filled cells of a padded sort next to a crop sort of the same scene.
#
# Usage: bench/scene_bench.sh [SCENE] [BACKEND] [THREADS] [OUTDIR]
#   defaults: ../shared/data/scenes/plant.splat (beside the checkout) cpu 2 bench/results/scene
# Run from the build folder (needs ./cuplas and bench/scene_eval).
set -euo pipefail
scene=${1:-$(cd "$(dirname "$0")/.." && pwd)/../shared/data/scenes/plant.splat}
backend=${2:-cpu}
threads=${3:-2}
out=${4:-bench/results/scene}
mkdir -p "$out"
sog=(--channels x,y,z,f_dc_0-2,scale_0-2 --normalize standardize
     --set 'channels.exp=["scale_*"]' --set 'channels.groups=["x,y,z","f_dc_0-2","scale_0-2"]'
     --backend "$backend" --threads "$threads" --force)
field() { grep -o "\"$1\":[-0-9.e]*" "$2" | head -1 | cut -d: -f2; }
printf '%-22s %-9s %8s %8s %8s %8s %9s %9s\n' run grid read_s prep_s sort_s write_s and_before and_after
for run in "pad auto" "crop auto" "pad square" "crop square"; do
    set -- $run
    name="$1-$2"
    ./cuplas sort "$scene" "$out/$name.h5" "${sog[@]}" --fit "$1" --grid "$2" \
        --ply "$out/$name.ply" --log-format json 2>"$out/$name.log"
    grid=$(h5dump -H -d /vertex/index "$out/$name.h5" | grep -o '( [0-9]*, [0-9]* )' | head -1 |
           tr -d '( )' | tr , x)
    printf '%-22s %-9s %8.3f %8.3f %8.2f %8.3f %9.4f %9.4f\n' "$name" "$grid" \
        "$(field read_s "$out/$name.log")" "$(field prep_s "$out/$name.log")" \
        "$(field sort_s "$out/$name.log")" "$(field write_s "$out/$name.log")" \
        "$(field and_before "$out/$name.log")" "$(field and_after "$out/$name.log")"
done
for name in pad-auto crop-square; do
    bench/scene_eval "$scene" "$out/$name.h5"
done
