#!/bin/bash
# run.sh NAME PLY SEED [--set ...]: sog.yaml on the CPU, then eval at WebP method WM
name=$1; ply=$2; seed=$3; shift 3
B=/work/main/cuplas; d=/tmp/canon/r_${name}_$seed; rm -rf $d
OMP_NUM_THREADS=${T:-1} $B run /work/main/configs/sog.yaml --set "inputs=[{files: $ply}]" --set output.dir=$d \
  --set backend.device=cpu --set output.ply=false --set sort.seed=$seed "$@" > /tmp/canon/log_${name}_$seed 2>&1 || { echo FAIL $name; cat /tmp/canon/log_${name}_$seed; exit 1; }
f=$(find $d -name '*.h5' | head -1); mv $f /tmp/canon/$name.$seed.h5; rm -rf $d
CUPLAS=$B T=${T:-1} OUTDIR=/tmp/canon WM=${WM:-2} bash /work/main/bench/results/2026-11-25-cpu-scenes2/ev.sh /tmp/canon/$name.$seed.h5 $name.$seed.m${WM:-2} | tee -a /tmp/canon/runs.txt
