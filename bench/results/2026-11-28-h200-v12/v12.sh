# v12: GPU lanes under mixed shapes. One run of many grids of different heights, widths and
# channel counts (colours C=3, normal C=5/13/16/32, gaussians C=14 flat), sorted by 4 lanes
# on one GPU, three times, each compared byte for byte (index and sorted) with the CPU
# backend's run of the same inputs (bench/cmp_outputs); plus both captures through sog.yaml
# with 4 lanes, three times, against the CPU.
[ -d .dev/bin ] || (cd .dev && tar xJf bin.tar.xz)
source bench/device-lib.sh; dev_setup v12
mkdir -p $W/in
k=0
for s in 96x80 200x200 255x257 300x300 337x337 338x338 401x123 512x512; do
  $B/cuplas gen --size $s --seed $k $W/in/c$k.h5 >/dev/null; k=$((k+1))
done
for c in 5 13 16 32; do for s in 120x100 337x64 338x64 256x256; do
  $B/cuplas gen --kind normal --channels $c --size $s --seed $k $W/in/n$k.h5 >/dev/null; k=$((k+1))
done; done
for s in 128x128 200x199 330x330; do $B/cuplas gen --kind gaussians --size $s --seed $k $W/in/g$k.h5 >/dev/null; k=$((k+1)); done
ls $W/in | wc -l | sed 's/^/inputs: /' | tee $OUT/runs.txt
cat > $W/c.yaml <<YAML
inputs: [{files: "$W/in/*.h5"}]
output: {dir: out}
YAML
OMP_NUM_THREADS=16 $B/cuplas run $W/c.yaml --set output.dir=$W/cpu --set backend.device=cpu --log-format text 2>&1 | grep summary | sed 's/^/cpu: /' | tee -a $OUT/runs.txt
for r in 1 2 3; do
  $B/cuplas run $W/c.yaml --set output.dir=$W/gpu$r --set backend.lanes=4 --log-format text > $W/gpu$r.log 2>&1
  echo "gpu run $r rc=$?: $(grep summary $W/gpu$r.log) | $(grep -m1 'failed:' $W/gpu$r.log) | cmp: $($B/cmp_outputs $W/cpu $W/gpu$r 2>&1 | tail -1)" | tee -a $OUT/runs.txt
done
OMP_NUM_THREADS=16 $B/cuplas run configs/sog.yaml --set "inputs=[{files: .dev/scenes/*.splat}]" --set output.dir=$W/scpu --set output.ply=false --set backend.device=cpu --log-format text 2>&1 | grep summary | sed 's/^/scenes cpu: /' | tee -a $OUT/runs.txt
for r in 1 2 3; do
  $B/cuplas run configs/sog.yaml --set "inputs=[{files: .dev/scenes/*.splat}]" --set output.dir=$W/sg$r --set output.ply=false --set backend.lanes=4 --log-format text > $W/sg$r.log 2>&1
  echo "scenes gpu run $r rc=$?: $(grep summary $W/sg$r.log) | cmp: $($B/cmp_outputs $W/scpu $W/sg$r 2>&1 | tail -1)" | tee -a $OUT/runs.txt
done
