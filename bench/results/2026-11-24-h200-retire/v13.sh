#!/bin/bash
# v13: 4096^2 x 16 and 8192^2 x 16 float32 with default outputs, 0.4.1 (old) vs 0.4.2 (new), each twice
set -u
cd .dev && tar xJf libs.tar.xz && cd ..
export LD_LIBRARY_PATH=$PWD/.dev/lib
SD_PARTS="big" timeout 560 bash bench/startup-device.sh > $OUT/sd.txt 2>&1; echo "rc $?"
cp /tmp/sd-results/startup.jsonl /tmp/sd-results/table.txt $OUT/ 2>/dev/null
cat $OUT/table.txt
