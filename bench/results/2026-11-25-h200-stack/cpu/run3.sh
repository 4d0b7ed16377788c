#!/bin/bash
# run3.sh NAME SEED [--set ...]: sog.yaml on tarot with the /tmp/hx build (env passes through), then eval m2
name=$1; seed=$2; shift 2
d=/tmp/e16/r3_${name}_$seed
/tmp/hx/cuplas run /work/main/configs/sog.yaml --set "inputs=[{files: /work/shared/data/scenes/academic_tarot_cards.splat}]" --set output.dir=$d \
  --set backend.device=cpu --set output.ply=false --set sort.seed=$seed "$@" > /tmp/e16/log3_${name}_$seed 2>&1 || { echo FAIL; cat /tmp/e16/log3_${name}_$seed; }
f=$(ls $d/*.h5); mv $f /tmp/e16/$name.$seed.h5; rm -rf $d
CUPLAS=/work/main/cuplas bash /tmp/e16/ev.sh /tmp/e16/$name.$seed.h5 $name.$seed
