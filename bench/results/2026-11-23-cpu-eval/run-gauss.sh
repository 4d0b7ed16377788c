set -e
B=/work/wt-evalcli/cuplas
NAMES=x,y,z,f_dc_0,f_dc_1,f_dc_2,scale_0,scale_1,scale_2,rot_0,rot_1,rot_2,rot_3,opacity
$B gen --kind gaussians --size 128x128 --seed 0 gaussians.h5
( time $B sort gaussians.h5 gaussians-sorted.h5 --backend cpu --normalize standardize ) 2> sort-gauss.time
for s in plain sog gsplat; do
  $B eval gaussians-sorted.h5 --codecs png,webp,jxl --scheme $s --names $NAMES > eval-gauss-$s.txt
  $B eval gaussians-sorted.h5 --codecs png,webp,jxl --scheme $s --names $NAMES --json > eval-gauss-$s.json
done
echo finished
