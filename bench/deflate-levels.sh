#!/usr/bin/env bash
# deflate-levels.sh - output size and encode time per output.deflate level
# (issue 17), on the grids the default must serve:
#   normal   1024^2 x 16 float32 (cuplas gen --kind normal), in no order
#            (a pseudo-random permutation) and as sorted (cuplas sort's index)
#   colors   1024^2 x 3 uint8 (cuplas gen --kind colors), sorted
# each on one thread and on every core, with cuplas's encoder (libdeflate)
# and zlib's compress2 (the encoder before issue 17) for reference.
#
#   bench/deflate-levels.sh OUTDIR [LEVELS] [ROUNDS]
#
# Run from a built tree (./cuplas, bench/bench_deflate). Writes OUTDIR/
# levels.jsonl (one line per grid, order, threads, encoder and level) and
# keeps the inputs and the two sorts (CPU, deflate 0) in OUTDIR/data, so a
# rerun only encodes. LEVELS defaults to 1-6, ROUNDS (median) to 3.
set -euo pipefail
out=${1:?usage: bench/deflate-levels.sh OUTDIR [LEVELS] [ROUNDS]}
levels=${2:-1-6}
rounds=${3:-3}
here=$(cd "$(dirname "$0")/.." && pwd)
cuplas=$here/cuplas
bench=$here/bench/bench_deflate
mkdir -p "$out/data"
d=$out/data
[ -s "$d/normal16.h5" ] || "$cuplas" gen --kind normal --size 1024x1024 --channels 16 "$d/normal16.h5"
[ -s "$d/colors.h5" ] || "$cuplas" gen --kind colors --size 1024x1024 "$d/colors.h5"
for g in normal16 colors; do
    [ -s "$d/$g-sorted.h5" ] ||
        "$cuplas" sort "$d/$g.h5" "$d/$g-sorted.h5" --backend cpu --set output.deflate=0 \
            --set output.fsync=false
done
all=$(nproc)
: >"$out/levels.jsonl"
for t in 1 "$all"; do
    "$bench" --rounds "$rounds" --threads "$t" --levels "$levels" "$d/normal16.h5" /grid \
        >>"$out/levels.jsonl"
    "$bench" --rounds "$rounds" --threads "$t" --levels "$levels" "$d/normal16.h5" /grid \
        "$d/normal16-sorted.h5" >>"$out/levels.jsonl"
    "$bench" --rounds "$rounds" --threads "$t" --levels "$levels" "$d/colors.h5" /grid \
        "$d/colors-sorted.h5" >>"$out/levels.jsonl"
done
# one table: grid, order, threads, encoder, level, ms, ratio, MiB/s
python3 - "$out/levels.jsonl" <<'EOF'
import json, sys
print("| grid | order | threads | encoder | level | encode ms | stored/raw | MiB/s |")
print("|---|---|---|---|---|---|---|---|")
for line in open(sys.argv[1]):
    r = json.loads(line)
    shape = "x".join(str(x) for x in r["shape"])
    print(f"| {shape} {r['dtype']} | {r['order']} | {r['threads']} | {r['encoder']} | "
          f"{r['level']} | {r['encode_ms']:.0f} | {r['ratio']:.3f} | {r['mib_per_s']:.0f} |")
EOF
