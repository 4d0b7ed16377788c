#!/bin/bash
set -u
export LD_LIBRARY_PATH=$PWD/.dev/lib
B=$PWD/.dev/bin P=$PWD/.dev/peer-inputs.h5
ncu --kernel-name regex:local_staged --launch-skip 40 --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis_Tables --section SchedulerStats $B/bench_sort --runs 1 normal:1024x1024x16 > $OUT/ncu-staged16.txt 2>&1
grep -E "Duration|bank" $OUT/ncu-staged16.txt
