# v25: acceptance at main's head for issue 16's table (bench_sort, median of 5 after a
# warm-up, CUDA events), the two captures through configs/sog.yaml on the GPU with their
# SOG-scheme bytes against Morton, the 6.14M-splat PlayCanvas run's peak RSS, test_gpu quick.
[ -d .dev/bin ] || (cd .dev && tar xJf bin.tar.xz)
source bench/device-lib.sh; dev_setup v25
export OMP_NUM_THREADS=16
P=$PWD/.dev/peer-inputs.h5
for pr in fast default best; do
  cases="$P:/colors_1024"; [ $pr = default ] && cases="$cases colors:2048x2048 normal:1024x1024x16"
  $B/bench_sort --runs 5 --set sort.preset=$pr $cases 2>/dev/null | sed "s/^{/{\"preset\":\"$pr\",/" >> $J
done
python3 - $J <<'PY' | tee $OUT/table.txt
import json,sys
for l in open(sys.argv[1]):
    d=json.loads(l); print("%-8s %-28s %9.1f ms  AND %.4f" % (d["preset"], d["case"][-28:], d["device_ms"], d["and_after"]))
PY
mkdir -p $W/sc && cp .dev/scenes/*.splat $W/sc/
$B/cuplas run configs/sog.yaml --set "inputs=[{files: $W/sc/*.splat}]" --set output.dir=$W/so --set output.ply=false > $OUT/sog-run.log 2>&1; echo "sog run rc=$?" | tee -a $OUT/runs.txt
for f in $W/so/*.h5; do
  $B/cuplas eval $f --scheme sog --orders morton --json > $OUT/eval-$(basename $f .h5).json 2>>$OUT/runs.txt
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(sys.argv[2], 'sorted/morton png %.4f webp %.4f' % (d['ratios']['morton']['png'], d['ratios']['morton']['webp']))" $OUT/eval-$(basename $f .h5).json $(basename $f) | tee -a $OUT/runs.txt
done
$B/scene_tile .dev/scenes/plant.splat $W/p54.ply 54 > /dev/null
python3 - "$B/cuplas" "$W" <<'PY' | tee -a $OUT/runs.txt
import resource, subprocess, sys, time
b, w = sys.argv[1:3]
t0 = time.time()
rc = subprocess.call([b, "run", "configs/playcanvas.yaml", "--set", "inputs=[{files: %s/p54.ply}]" % w,
                      "--set", "output.dir=%s/r" % w], stdout=open(w + "/pc.log", "w"), stderr=subprocess.STDOUT)
print("playcanvas 6.14M rc=%d wall %.2f s peak RSS %.2f GiB" % (rc, time.time() - t0,
      resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1048576.0))
PY
rm -f $W/p54.ply
CUPLAS_TEST_QUICK=1 timeout 200 $B/test_gpu > $OUT/test_gpu.txt 2>&1; echo "test_gpu quick rc=$?: $(grep -E 'PASSED|FAILED' $OUT/test_gpu.txt | tr '\n' ' ')" | tee -a $OUT/runs.txt
echo "== table"; cat $OUT/table.txt $OUT/runs.txt
