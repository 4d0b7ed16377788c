#!/bin/bash
# run.sh NAME SCENE SEED [--set ...]: sog.yaml sort on CPU (env CUPLAS_EXP_* passed through), then eval (WM)
name=$1; scene=$2; seed=$3; shift 3
B=${BIN:-/work/wt-lever/cuplas}
d=/tmp/lv/r_${name}_$seed; rm -rf $d
OMP_NUM_THREADS=${T:-1} $B run /work/main/configs/sog.yaml --set "inputs=[{files: /work/main/.dev/scenes/$scene.splat}]" --set output.dir=$d \
  --set backend.device=cpu --set output.ply=false --set sort.seed=$seed "$@" > /tmp/lv/log_${name}_$seed 2>&1 || { echo FAIL $name; cat /tmp/lv/log_${name}_$seed; exit 1; }
f=$(find $d -name '*.h5' | head -1); mv $f /tmp/lv/$name.$seed.h5; rm -rf $d
CUPLAS=/work/wt-lever/cuplas T=${T:-1} OUTDIR=/tmp/lv WM=${WM:-2} bash /tmp/lv/ev.sh /tmp/lv/$name.$seed.h5 $name.$seed.m${WM:-2} | tee -a /tmp/lv/runs.txt
