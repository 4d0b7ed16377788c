#!/bin/bash
# v1: pool for one-file runs, index pre-fault, early GPU retire (0.4.1 = old vs new):
# test_gpu, one-file x5 each, collection B with defaults, memcheck of a retiring run
set -u
cd .dev && tar xJf libs.tar.xz && cd ..
export LD_LIBRARY_PATH=$PWD/.dev/lib
export PIPE_ONLY=B
SD_PARTS="test one pipe" timeout 540 bash bench/startup-device.sh > $OUT/sd.txt 2>&1; echo "startup-device rc $?"
W=/tmp/sd-work; B=$PWD/.dev/bin
compute-sanitizer --tool memcheck --error-exitcode 9 $B/cuplas sort $W/c1024.h5 $W/ms.h5 --force > $OUT/memcheck.log 2>&1; echo "memcheck one-file rc $? $(tail -1 $OUT/memcheck.log)"
$B/cuplas gen --kind colors --size 256x256 --count 6 --seed 3 $W/six.h5 > /dev/null
printf 'inputs:\n  - files: %s\noutput:\n  dir: %s\n  overwrite: overwrite\nbackend:\n  device: gpu\n  lanes: 3\n' $W/six.h5 $W/six-out > $W/six.yaml
compute-sanitizer --tool memcheck --error-exitcode 9 $B/cuplas run $W/six.yaml > $OUT/memcheck6.log 2>&1; echo "memcheck 6 grids 3 lanes rc $? $(tail -1 $OUT/memcheck6.log)"
cat $OUT/table.txt
