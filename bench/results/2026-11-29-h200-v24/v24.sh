# v24: v23 again after the palette's host loops moved onto the run's pool (the sog step's
# breakdown at 6.14M splats, the same bytes), then test_gpu.
[ -d .dev/bin ] || (cd .dev && tar xJf bin.tar.xz)
source bench/device-lib.sh; dev_setup v24
export OMP_NUM_THREADS=16
$B/scene_tile .dev/scenes/plant.splat $W/p54.ply 54 > /dev/null
t0=$(date +%s.%N)
$B/cuplas run configs/playcanvas.yaml --set "inputs=[{files: $W/p54.ply}]" --set output.dir=$W/r --set logging.level=debug --log-format json > $OUT/run.log 2>&1; echo "rc=$? wall $(python3 -c "print(round($(date +%s.%N)-$t0,2))") s" | tee -a $OUT/runs.txt
grep -E '"sog_timing"|"job_done"' $OUT/run.log | python3 -c "
import json,sys
for l in sys.stdin:
    d=json.loads(l); print(d['event'], {k: (round(v,2) if isinstance(v,float) else v) for k,v in d.items() if k.endswith('_s') or k=='sog_bytes'})" | tee -a $OUT/runs.txt
rm -f $W/p54.ply
timeout 150 $B/test_gpu > $OUT/test_gpu.txt 2>&1; echo "test_gpu rc=$? $(grep -c '\[       OK \]' $OUT/test_gpu.txt) ok, $(grep -c 'FAILED  \]' $OUT/test_gpu.txt) failed lines" | tee -a $OUT/runs.txt
