# v23: the 6.14M-splat plant with noise SH through configs/playcanvas.yaml with logging.level
# debug: the sog step's own breakdown (its sog_timing event), to place the seconds v22's sog_s
# had beyond export-sog's.
[ -d .dev/bin ] || (cd .dev && tar xJf bin.tar.xz)
source bench/device-lib.sh; dev_setup v23
export OMP_NUM_THREADS=16
$B/scene_tile .dev/scenes/plant.splat $W/p54.ply 54 > /dev/null
t0=$(date +%s.%N)
$B/cuplas run configs/playcanvas.yaml --set "inputs=[{files: $W/p54.ply}]" --set output.dir=$W/r --set logging.level=debug --log-format text > $OUT/run.log 2>&1; echo "rc=$? wall $(python3 -c "print(round($(date +%s.%N)-$t0,2))") s" | tee -a $OUT/runs.txt
grep -E "sog:|done |GPU busy|timing" $OUT/run.log | tee -a $OUT/runs.txt
