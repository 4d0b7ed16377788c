#!/bin/bash
U='[x, y, z, "f_dc_0-2", "scale_0-2", "rot_0-3"]'; G='["x,y,z", "f_dc_0-2", "scale_0-2", "rot_0-3"]'; UN='["rot_0-3"]'
for w in "8,8,8" "10,5,10" "5,10,10" "10,10,5" "11,4,11" "6,6,12"; do
  ./rvf.sh ax_${w//,/_} /tmp/uv/tarot_f.ply "$U" "[$w,1,1,1,1.5,1.5,1.5,3,3,3,3]" "$G" "$UN"
done
