#!/bin/bash
# measure.sh - README figures measured again on the 2-core development VM (no GPU), each
# printed as a line of results.txt. Run from the repository root after `make` (and `make
# examples/pixel_sort`); H5PY_PYTHON names a python3 with h5py for the two generated inputs.
set -u
R=$PWD; B=$R/cuplas; W=$(mktemp -d); OUT=$R/bench/results/2026-11-29-cpu-readme/results.txt
: > $OUT
t() { local t0=$(date +%s.%N); "$@" > /dev/null 2>&1; local rc=$?; echo "$(python3 -c "print(round($(date +%s.%N) - $t0, 3))") rc=$rc"; }
# 1. examples/pixel_sort on chelsea.png, three runs
for k in 1 2 3; do echo "pixel_sort chelsea.png: $(t examples/pixel_sort ../shared/data/images/chelsea.png $W/ch.png)" >> $OUT; done
# 2. examples/playcanvas.sh, without and with the eval step
echo "playcanvas.sh EVAL=0: $(EVAL=0 t examples/playcanvas.sh $W/pc0)" >> $OUT
echo "playcanvas.sh (eval, WebP method 6): $(t examples/playcanvas.sh $W/pc1)" >> $OUT
# 3. a 1.4 KB file declaring a 65,536 x 65,536 uint8 grid: refused before reading
$H5PY_PYTHON - $W/big.h5 <<'PY'
import h5py, sys
with h5py.File(sys.argv[1], "w") as f:
    f.create_dataset("grid", shape=(65536, 65536, 1), dtype="u1", chunks=(256, 256, 1))
PY
echo "big.h5 $(stat -c %s $W/big.h5) bytes, sort: $(t $B sort $W/big.h5 $W/bigo.h5 --backend cpu)" >> $OUT
$B sort $W/big.h5 $W/bigo.h5 --backend cpu 2>&1 | tail -1 >> $OUT
# 4. check of a config with 20,000 entries naming one file
$B gen --size 8x8 $W/one.h5 > /dev/null
python3 -c "
import sys
print('inputs:')
for i in range(20000): print('  - files: $W/one.h5')
print('output:\n  dir: $W/o20k')" > $W/c20k.yaml
for k in 1 2 3; do echo "check, 20,000 entries: $(t $B check $W/c20k.yaml)" >> $OUT; done
# 5. OMP_WAIT_POLICY with a busy core: an 80 x 80 x 3 sort on 2 threads, 5 runs each
$B gen --size 80x80 $W/s80.h5 > /dev/null
yes > /dev/null & Y=$!
for k in 1 2 3 4 5; do echo "active, 2 threads: $(OMP_WAIT_POLICY=active t $B sort $W/s80.h5 $W/s80o.h5 --backend cpu --threads 2 --force)" >> $OUT; done
for k in 1 2 3 4 5; do echo "passive (default), 2 threads: $(t $B sort $W/s80.h5 $W/s80o.h5 --backend cpu --threads 2 --force)" >> $OUT; done
for k in 1 2 3 4 5; do echo "one thread: $(t $B sort $W/s80.h5 $W/s80o.h5 --backend cpu --threads 1 --force)" >> $OUT; done
kill $Y
rm -rf $W
cat $OUT
