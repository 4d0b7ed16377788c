#!/bin/sh
# The reads of bench/results/2026-11-28-cpu-decpar: BEFORE and AFTER are builds of
# bench/scene_read (before: 2869b63's src/ with this commit's bench/scene_read.c);
# DIR holds big.splat (tile_splat.py: tarot x 40) and big.compressed.ply (its encoding
# by ../2026-11-28-cpu-compressed/splat2cply.py). Each line: 7 reads after a warm-up.
set -e
BEFORE=$1 AFTER=$2 DIR=$3
for f in big.splat big.compressed.ply; do
    for mode in "" --pool; do
        for t in 1 2; do
            for b in "$BEFORE" "$AFTER"; do
                echo "$(basename "$b") $("$b" "$DIR/$f" $t 7 $mode | tail -1)"
            done
        done
    done
done
