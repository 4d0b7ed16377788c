#!/usr/bin/env bash
# groups_sweep.sh - issue 16's algorithm levers on the CPU (bench_groups):
# group size 4/8/16 and the per-configuration target, each against the
# default's work levers, so they can be compared at equal CPU time.
#
#   bench/groups_sweep.sh OUTDIR [GROUP...]   GROUP: main (default), work, best, fast
#   env: GSWEEP_CASES cases for bench_groups (default below)
#        GSWEEP_BIN   bench_groups binary (default bench/bench_groups)
#
# Writes OUTDIR/groups.jsonl (one bench_groups line per case and
# setting). OMP_NUM_THREADS=1: CPU ms is one core's work.
set -eu -o pipefail
out=${1:?usage: groups_sweep.sh OUTDIR [GROUP...]}
shift
groups=${*:-main}
bin=${GSWEEP_BIN:-bench/bench_groups}
data=${CUPLAS_SHARED_DATA:-$(dirname "$0")/../../shared/data}
export OMP_NUM_THREADS=1
mkdir -p "$out"
log=$out/groups.jsonl
default_cases="png:$data/colors_1024_random.png|1-5
colors:128|1-2
$data/peer-inputs.h5:/colors_256|1337-1337"
cases=${GSWEEP_CASES:-$default_cases}

run() { # label, bench_groups options (--group, --retarget), then key=value
    local label=$1
    shift
    local opts=()
    for o in "$@"; do
        case $o in --*) opts+=("$o") ;; *=*) opts+=(--set "$o") ;; *) opts+=("$o") ;; esac
    done
    while IFS='|' read -r c seeds; do
        [ -n "$c" ] || continue
        "$bin" --seeds "$seeds" --label "$label" "${opts[@]}" "$c" | tee -a "$log"
    done <<<"$cases"
}

for g in $groups; do
    case $g in
    main)
        run k4 --group 4
        run k8 --group 8
        run k16 --group 16
        run k4-retarget --group 4 --retarget
        run k16-retarget --group 16 --retarget
        ;;
    work) # equal-time partners: more work for k = 4, less for k = 8/16
        run k4-d0.98 --group 4 sort.radius_decay=0.98
        run k4-c4..8 --group 4 sort.min_configs=4 sort.max_configs=8
        run k4-best --group 4 sort.preset=best
        run k8-d0.9 --group 8 sort.radius_decay=0.9
        run k16-d0.9 --group 16 sort.radius_decay=0.9
        run k16-d0.85 --group 16 sort.radius_decay=0.85
        run k16-c1..2 --group 16 sort.min_configs=1 sort.max_configs=2
        run k16-ib1e-2 --group 16 sort.improvement_break=1e-2
        ;;
    best) # `best` with larger groups, and cheaper variants of it
        run best-k8 --group 8 sort.preset=best
        run best-k16 --group 16 sort.preset=best
        run best-k16-d0.98 --group 16 sort.preset=best sort.radius_decay=0.98
        run best-k16-c2..8 --group 16 sort.preset=best sort.min_configs=2 sort.max_configs=8
        ;;
    fast) # `fast` with larger groups
        run fast-k4 --group 4 sort.preset=fast
        run fast-k8 --group 8 sort.preset=fast
        run fast-k16 --group 16 sort.preset=fast
        ;;
    *) echo "unknown group $g" >&2; exit 2 ;;
    esac
done
