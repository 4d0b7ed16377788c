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
# Prints one line per round and setting: "fsync=true round=1 grids/s=...".
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
EOF
        sync
        t0=$(date +%s.%N)
        "$cuplas" run "$out/run.yaml" --log-format json >"$out/log.jsonl" 2>&1
        t1=$(date +%s.%N)
        n=$(ls "$out/res" | wc -l)
        python3 -c "import sys; n, a, b = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]); \
print(f'fsync={sys.argv[4]} round={sys.argv[5]} outputs={n} seconds={b - a:.2f} grids/s={n / (b - a):.1f}')" \
            "$n" "$t0" "$t1" "$fs" "$r"
    done
done
