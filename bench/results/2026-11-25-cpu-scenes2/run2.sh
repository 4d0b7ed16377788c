#!/bin/bash
# run1.sh NAME PLY SEED [--set ...]: sog.yaml on the warped positions, CPU, then eval
name=$1; ply=$2; seed=$3; shift 3
${CUPLAS:-/work/main/cuplas} run /work/main/configs/sog.yaml --set "inputs=[{files: $ply}]" --set output.dir=/tmp/e16/r_$name_$seed \
  --set backend.device=cpu --set output.ply=false --set sort.seed=$seed \
  --set 'channels.use=[wx,wy,wz,"f_dc_0-2","scale_0-2","rot_0-3"]' --set 'channels.groups=["wx,wy,wz","f_dc_0-2","scale_0-2","rot_0-3"]' "$@" > /tmp/e16/log_${name}_$seed 2>&1
f=$(ls /tmp/e16/r_$name_$seed/*.h5); mv $f /tmp/e16/$name.$seed.h5; rm -rf /tmp/e16/r_$name_$seed
CUPLAS=/work/main/cuplas bash /tmp/e16/ev.sh /tmp/e16/$name.$seed.h5 $name.$seed
