# v19b: where the sog step's time goes at 6.14M splats (the plant with noise SH laid 54 times):
# the result sorted with the sog step off, then export-sog of it at WebP method 2 with SH
# (its palette line: updates, assignment seconds) and without (--no-sh: the five images only).
[ -d .dev/bin ] || (cd .dev && tar xJf bin.tar.xz)
source bench/device-lib.sh; dev_setup v19b
export OMP_NUM_THREADS=16
$B/scene_tile .dev/scenes/plant.splat $W/p54.ply 54 > /dev/null
$B/cuplas run configs/playcanvas.yaml --set "inputs=[{files: $W/p54.ply}]" --set output.dir=$W/r --set output.ply=false --set sog.enabled=false --log-format text > $OUT/run.log 2>&1
rm -f $W/p54.ply
for v in sh nosh; do
  [ $v = sh ] && a= || a=--no-sh
  t0=$(date +%s.%N); $B/cuplas export-sog $W/r/p54.vertex.h5 $W/ex-$v --webp-method 2 $a > $OUT/export-$v.txt 2>&1; rc=$?; t1=$(date +%s.%N)
  echo "export-sog $v rc=$rc wall $(python3 -c "print(round($t1-$t0,2))") s" | tee -a $OUT/runs.txt; cat $OUT/export-$v.txt | tee -a $OUT/runs.txt
done
echo "== summary"; cat $OUT/runs.txt
