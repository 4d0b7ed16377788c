#!/bin/bash
# run4.sh NAME SEED [--set ...]: configs/sog.yaml on tarot with /work/main/cuplas (CPU backend), then ../2026-11-25-cpu-scenes2/ev.sh (sog eval, WebP method 2)
name=$1; seed=$2; shift 2
d=/tmp/e16/r4_${name}_$seed
/work/main/cuplas run /work/main/configs/sog.yaml --set "inputs=[{files: /work/shared/data/scenes/academic_tarot_cards.splat}]" --set output.dir=$d \
  --set backend.device=cpu --set output.ply=false --set sort.seed=$seed "$@" > /tmp/e16/log4_${name}_$seed 2>&1 || { echo FAIL; cat /tmp/e16/log4_${name}_$seed; }
f=$(ls $d/*.h5); mv $f /tmp/e16/$name.$seed.h5; rm -rf $d
CUPLAS=/work/main/cuplas bash /work/main/bench/results/2026-11-25-cpu-scenes2/ev.sh /tmp/e16/$name.$seed.h5 $name.$seed
