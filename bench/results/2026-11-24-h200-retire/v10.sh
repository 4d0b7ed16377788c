#!/bin/bash
set -u
cd .dev && tar xJf libs.tar.xz && cd ..
export LD_LIBRARY_PATH=$PWD/.dev/lib
.dev/bin/lane_setup 16 | tee $OUT/lane_setup-16.jsonl
.dev/bin/lane_setup 16 | tee -a $OUT/lane_setup-16.jsonl
.dev/bin/lane_setup 4 1024 1024 4 | tee $OUT/lane_setup-4-1024.jsonl
