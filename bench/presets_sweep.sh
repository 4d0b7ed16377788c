#!/usr/bin/env bash
# presets_sweep.sh - the preset ablation: every sort.* lever, one at a time
# from the default, then the combinations and the presets, on the CPU.
#
#   bench/presets_sweep.sh OUTDIR [GROUP...]
#     GROUP: levers (one-at-a-time), combos, presets (default: all three)
#   env: SWEEP_CASES  cases for bench_presets (default below)
#        SWEEP_BIN    bench_presets binary (default bench/bench_presets)
#
# Writes OUTDIR/sweep.jsonl (one bench_presets line per case and setting,
# "label" = "group/lever=setting") and OUTDIR/table.md (the ablation
# table, scripts/presets-table.py). Why the CPU: its index is bit-identical
# to the GPU's, so AND and DPQ16 are exactly the GPU's; passes stand in for
# GPU time. OMP_NUM_THREADS=1 so that CPU ms counts one core's work even on
# a shared machine.
set -eu -o pipefail
out=${1:?usage: presets_sweep.sh OUTDIR [GROUP...]}
shift
groups=${*:-levers combos presets}
bin=${SWEEP_BIN:-bench/bench_presets}
data=${CUPLAS_SHARED_DATA:-$(dirname "$0")/../../shared/data}
export OMP_NUM_THREADS=1
mkdir -p "$out"
log=$out/sweep.jsonl

# case|seeds: the 32x32 DPQ benchmark over seeds 1-5 (the issue's rule),
# generated colours 64^2 and 128^2, the peers' 256^2 input at PLAS's seed,
# 128^2 x 16 normals.
default_cases="png:$data/colors_1024_random.png|1-5
colors:64|1-3
colors:128|1-2
$data/peer-inputs.h5:/colors_256|1337-1337
normal:128x128x16|1-1"
cases=${SWEEP_CASES:-$default_cases}

run() { # label, then --set arguments
    local label=$1
    shift
    local sets=()
    for kv in "$@"; do sets+=(--set "$kv"); done
    while IFS='|' read -r c seeds; do
        [ -n "$c" ] || continue
        "$bin" --seeds "$seeds" --label "$label" ${sets[@]+"${sets[@]}"} "$c" | tee -a "$log"
    done <<<"$cases"
}

for g in $groups; do
    case $g in
    levers)
        run levers/default
        for v in 0.8 0.9 0.97 0.98 0.99; do run "levers/radius_decay=$v" sort.radius_decay=$v; done
        for v in 2 3; do run "levers/min_blur_radius=$v" sort.min_blur_radius=$v; done
        for v in 2 3 4; do run "levers/blur_passes=$v" sort.blur_passes=$v; done
        for v in 0.01 0.003 0.0003 0.0001 0; do run "levers/improvement_break=$v" sort.improvement_break=$v; done
        run levers/configs=1..1 sort.min_configs=1 sort.max_configs=1
        run levers/configs=1..2 sort.min_configs=1 sort.max_configs=2
        run levers/configs=2..2 sort.min_configs=2 sort.max_configs=2
        run levers/configs=4..8 sort.min_configs=4 sort.max_configs=8
        run levers/configs=4..16 sort.min_configs=4 sort.max_configs=16
        for v in 1 4 16; do run "levers/max_passes=$v" sort.max_passes=$v; done
        for v in 2 8 16; do run "levers/min_block_size=$v" sort.min_block_size=$v; done
        for v in 8 16 32; do run "levers/start_radius=$v" sort.start_radius=$v; done
        run levers/permuter=lcg sort.permuter=lcg
        run levers/border=reflect,reflect sort.border_x=reflect
        run levers/border=circular,circular sort.border_y=circular
        run levers/border=replicate,replicate sort.border_x=replicate sort.border_y=replicate
        ;;
    combos)
        # quality: README's old "quality settings", then slower decays and
        # non-wrapping borders on top (the levers that helped alone)
        q="sort.improvement_break=0.0001 sort.max_passes=16 sort.min_configs=4 sort.max_configs=16"
        # shellcheck disable=SC2086
        run combos/quality $q
        for d in 0.97 0.98 0.99; do
            # shellcheck disable=SC2086
            run "combos/quality+decay=$d" $q sort.radius_decay=$d
        done
        # shellcheck disable=SC2086
        run "combos/quality+decay=0.99+reflect,reflect" $q sort.radius_decay=0.99 sort.border_x=reflect
        run "combos/decay=0.99+reflect,reflect" sort.radius_decay=0.99 sort.border_x=reflect
        run "combos/decay=0.98+configs=4..8+passes=4" sort.radius_decay=0.98 sort.min_configs=4 \
            sort.max_configs=8 sort.max_passes=4
        # speed: fewer levels, keeping the work per level (at 1024^2 one pass
        # per level is far too little: bench/results/.../README)
        for d in 0.85 0.9; do
            run "combos/decay=$d+improvement_break=0.01" sort.radius_decay=$d sort.improvement_break=0.01
            run "combos/decay=$d+configs=2..2" sort.radius_decay=$d sort.max_configs=2
        done
        ;;
    presets)
        for p in fast default best; do run "presets/$p" sort.preset=$p; done
        ;;
    *) echo "unknown group $g" >&2; exit 2 ;;
    esac
done
python3 "$(dirname "$0")/../scripts/presets-table.py" "$log" > "$out/table.md"
