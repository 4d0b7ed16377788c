# v14: the SH palette's k-means (export-sog's shN) on the GPU. test_gpu's k-means parity
# test; compute-sanitizer memcheck and racecheck on a small fit; bench_palette at SOG's 64Ki
# palette (the assignment alone, median of 5 after a warm-up, against one CPU assignment on
# 16 threads; whole 10-update fits); export-sog end to end on the plant tiled with
# scene_tile's (noise) SH bands, 1 copy on GPU and CPU compared byte for byte, 9 copies timed.
[ -d .dev/bin ] || (cd .dev && tar xJf bin.tar.xz)
source bench/device-lib.sh; dev_setup v14
export OMP_NUM_THREADS=16
CUPLAS_TEST_FILTER=test_gpu_kmeans_parity $B/test_gpu > $OUT/test_gpu_kmeans.txt 2>&1
echo "test_gpu kmeans rc=$?: $(grep -E 'PASSED|FAILED' $OUT/test_gpu_kmeans.txt | tr '\n' ' ')" | tee $OUT/runs.txt
for tool in memcheck racecheck; do
  compute-sanitizer --tool $tool $B/bench_palette 3000 45 500 2 0 > $OUT/$tool.txt 2>&1
  echo "$tool rc=$?: $(grep 'ERROR SUMMARY\|RACECHECK SUMMARY' $OUT/$tool.txt | tr '\n' ' ')" | tee -a $OUT/runs.txt
done
for cfg in "114865 45 65536 10 0 --cpu-check" "114865 24 65536 10 0 --cpu-check" "114865 9 65536 10 0 --cpu-check" \
           "1000000 45 65536 10 0" "3000000 45 65536 10 0"; do
  $B/bench_palette $cfg | tee -a $OUT/bench.jsonl
done
$B/scene_tile .dev/scenes/plant.splat $W/p1.ply 1 > /dev/null && $B/scene_tile .dev/scenes/plant.splat $W/p9.ply 9 > /dev/null
for s in p1 p9; do
  $B/cuplas run configs/playcanvas.yaml --set "inputs=[{files: $W/$s.ply}]" --set output.dir=$W/r --set output.ply=false --log-format text 2>&1 | grep summary | sed "s/^/$s run: /" | tee -a $OUT/runs.txt
done
for b in gpu cpu; do
  t0=$(date +%s.%N); $B/cuplas export-sog $W/r/p1.vertex.h5 $W/sog1-$b --backend $b > $OUT/export-p1-$b.txt 2>&1; rc=$?; t1=$(date +%s.%N)
  echo "export p1 $b rc=$rc $(python3 -c "print(f'{$t1-$t0:.2f} s')") | $(tail -1 $OUT/export-p1-$b.txt)" | tee -a $OUT/runs.txt
done
echo "p1 gpu vs cpu files: $(diff -r $W/sog1-gpu $W/sog1-cpu > /dev/null && echo identical || echo DIFFER) ($(ls $W/sog1-gpu | tr '\n' ' '))" | tee -a $OUT/runs.txt
ls -l $W/sog1-gpu | tee -a $OUT/runs.txt
for r in 1 2; do
  rm -rf $W/sog9; t0=$(date +%s.%N); $B/cuplas export-sog $W/r/p9.vertex.h5 $W/sog9 > $OUT/export-p9-$r.txt 2>&1; rc=$?; t1=$(date +%s.%N)
  echo "export p9 run $r rc=$rc $(python3 -c "print(f'{$t1-$t0:.2f} s')") | $(tr '\n' ' ' < $OUT/export-p9-$r.txt)" | tee -a $OUT/runs.txt
done
ls -l $W/sog9 | tee -a $OUT/runs.txt
