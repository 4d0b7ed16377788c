#!/usr/bin/env bash
# fsync-batch.sh - what output.fsync costs a run of many small grids
# (issue 17): grids/s of `cuplas run` over COUNT grids of SIZE colours
# (uint8, 3 channels) on the CPU with the default outputs (deflate 4 +
# shuffle), with output.fsync true and false.
#
#   bench/fsync-batch.sh CUPLAS OUTDIR [COUNT] [SIZE] [ROUNDS]
#
# Give an older binary as CUPLAS to compare fsync schemes (before issue 17
# each result fsync'd its file and then its folder; since, the file's data
# before the rename and the folder once per batch). Output folders are on
# OUTDIR's file system: put it on the disk to be measured, not a tmpfs.
# DEFLATE=N sets output.deflate (default: the binary's default), to compare
# binaries whose defaults differ.
# THREADS sets backend.threads (default 1: on a loaded machine OpenMP teams
# on tiny grids measure the scheduler, not the disk).
# Prints one line per round and setting: grids/s over the whole process,
# and the jobs' write stage (encode + file + fsync + rename), summed and
# median, from the JSON log: the part fsync changes.
set -euo pipefail
cuplas=${1:?usage: bench/fsync-batch.sh CUPLAS OUTDIR [COUNT] [SIZE] [ROUNDS]}
out=${2:?usage: bench/fsync-batch.sh CUPLAS OUTDIR [COUNT] [SIZE] [ROUNDS]}
count=${3:-384}
size=${4:-32x32}
rounds=${5:-3}
mkdir -p "$out"
[ -s "$out/in.h5" ] || "$cuplas" gen --kind colors --size "$size" --count "$count" "$out/in.h5"
for r in $(seq 1 "$rounds"); do
    for fs in true false; do
        rm -rf "$out/res"
        cat >"$out/run.yaml" <<EOF
inputs:
  - files: "$out/in.h5"
output:
  dir: $out/res
  overwrite: overwrite
  fsync: $fs
backend:
  device: cpu
  threads: ${THREADS:-1}
EOF
        sync
        t0=$(date +%s.%N)
        "$cuplas" run "$out/run.yaml" --log-format json >"$out/log.jsonl" 2>&1
        t1=$(date +%s.%N)
        n=$(ls "$out/res" | grep -c "\.h5$")
        python3 - "$n" "$t0" "$t1" "$fs" "$r" "$out/log.jsonl" <<'PY'
import json, sys
n, a, b = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
done = [e for e in map(json.loads, (l for l in open(sys.argv[6]) if l.startswith("{")))
        if e.get("event") == "job_done"]
w = sorted(e["write_s"] for e in done)
print(f"fsync={sys.argv[4]} round={sys.argv[5]} outputs={n} seconds={b - a:.2f} "
      f"grids/s={n / (b - a):.1f} write_s_sum={sum(w):.3f} write_ms_median={1e3 * w[len(w) // 2]:.2f}")
PY
    done
done
