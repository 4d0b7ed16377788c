#!/bin/bash
# v2: lanes tests, one-file old vs new x5, collection B defaults, memcheck one-file
set -u
cd .dev && tar xJf libs.tar.xz && cd ..
export LD_LIBRARY_PATH=$PWD/.dev/lib
B=$PWD/.dev/bin
for t in test_gpu_lanes_ordered test_gpu_prepare; do
  CUPLAS_TEST_FILTER=$t timeout 120 $B/test_gpu > $OUT/$t.log 2>&1; echo "$t rc $? $(grep -c 'OK \]' $OUT/$t.log)"
done
export PIPE_ONLY=B
SD_PARTS="one pipe" timeout 420 bash bench/startup-device.sh > $OUT/sd.txt 2>&1; echo "startup-device rc $?"
cp -r /tmp/sd-results/* $OUT/ 2>/dev/null
W=/tmp/sd-work
compute-sanitizer --tool memcheck --error-exitcode 9 $B/cuplas sort $W/c1024.h5 $W/ms.h5 --force > $OUT/memcheck.log 2>&1; echo "memcheck one-file rc $? $(tail -1 $OUT/memcheck.log)"
cat $OUT/table.txt
