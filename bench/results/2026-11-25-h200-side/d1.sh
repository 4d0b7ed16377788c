# d1: the GPU lanes' start-up and retire threads on util/side.c, checked on the GPU;
# `best` at 2048^2 x 16 (the README's one "not measured" cell).
#   scripts/device-bundle.sh; strip .dev/bin/*; libs packed; tarot .splat copied into .dev
#   device run, kind nvidia-h200, carry [".dev"]: bash bench/results/2026-11-25-h200-side/d1.sh
set -u
source bench/device-lib.sh; dev_setup d1

# 1. test_gpu, quick mode: every GPU kernel and sort against the CPU reference
( time CUPLAS_TEST_QUICK=1 timeout 240 $B/test_gpu ) > $OUT/test_gpu.txt 2>&1
echo "test_gpu rc $?" >> $OUT/test_gpu.txt

# 2. 12 grids of 256^2 colours through `cuplas run`: CPU, GPU with 1 lane and with 3
#    (each lane's context made on the start-up thread, the last lane's retire thread
#    freeing them); every result must be the CPU's bytes
$B/cuplas gen --kind colors --size 256x256 --count 12 $W/c12.h5 > /dev/null
printf 'inputs:\n  - files: %s\noutput:\n  dir: %s\n' $W/c12.h5 $W/o > $W/c12.yaml
for m in cpu:0 gpu:1 gpu:3 gpu:3; do
    d=${m%:*}; l=${m#*:}; o=$W/o-$d-$l; rm -rf $o
    t0=$(date +%s.%N)
    $B/cuplas run $W/c12.yaml --set backend.device=$d --set backend.lanes=$l \
        --set output.dir=$o --log-format json > $W/log-$d-$l 2>&1
    rc=$?; t1=$(date +%s.%N)
    rec "c12-$d-lanes$l-rc$rc" $W/log-$d-$l $t0 $t1
done
for l in 1 3; do echo "lanes $l: $($B/cmp_outputs $W/o-cpu-0 $W/o-gpu-$l 2>&1 | tail -1)"; done > $OUT/cmp.txt

# 3. tarot through sog.yaml, CPU and GPU: the same index and sorted values
for d in cpu gpu; do
    t0=$(date +%s.%N)
    $B/cuplas run configs/sog.yaml --set "inputs=[{files: $PWD/.dev/tarot.splat}]" \
        --set output.dir=$W/s-$d --set output.ply=false --set backend.device=$d \
        --log-format json > $W/slog-$d 2>&1
    rc=$?; t1=$(date +%s.%N)
    rec "tarot-$d-rc$rc" $W/slog-$d $t0 $t1
done
echo "tarot: $($B/cmp_outputs $W/s-cpu $W/s-gpu 2>&1 | tail -1)" >> $OUT/cmp.txt

# 4. `best` on normal 2048^2 x 16: median of 5 after a warm-up (bench_sort)
$B/bench_sort --runs 5 --set sort.preset=best normal:2048x2048x16 2>/dev/null |
    sed 's/^{/{"label":"best-2048x16",/' >> $J

echo "== d1"
grep -E "PASSED|FAILED|real|rc " $OUT/test_gpu.txt | tail -6
cat $OUT/cmp.txt
python3 -c "
import json
for l in open('$J'):
    d = json.loads(l)
    if 'device_ms' in d: print('%-20s %9.1f ms  AND %.4f' % (d['label'], d['device_ms'], d['and_after']))
    else: print('%-24s process %.3f s  jobs %d' % (d['label'], d['process_s'], d['jobs_done']))"
