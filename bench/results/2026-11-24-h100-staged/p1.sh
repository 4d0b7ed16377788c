#!/bin/bash
set -u
export LD_LIBRARY_PATH=$PWD/.dev/lib
B=$PWD/.dev/bin P=$PWD/.dev/peer-inputs.h5
ncu --metrics gpu__time_duration.sum,launch__grid_size,launch__shared_mem_per_block_dynamic --csv --kernel-name regex:"local|level_kernel|blur" $B/bench_sort --runs 1 normal:1024x1024x16 > $OUT/durations16.csv 2>/dev/null
ncu --metrics gpu__time_duration.sum,launch__grid_size,launch__shared_mem_per_block_dynamic --csv --kernel-name regex:"local|level_kernel|blur" $B/bench_sort --runs 1 colors:2048x2048 > $OUT/durations2048.csv 2>/dev/null
ncu --kernel-name regex:local_staged --launch-skip 40 --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables --section Occupancy --section WarpStateStats --section LaunchStats --section SchedulerStats --section SourceCounters $B/bench_sort --runs 1 normal:1024x1024x16 > $OUT/ncu-staged16.txt 2>&1
ncu --kernel-name regex:local_staged --launch-skip 100 --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables --section Occupancy --section WarpStateStats --section LaunchStats --section SchedulerStats --section SourceCounters $B/bench_sort --runs 1 colors:2048x2048 > $OUT/ncu-staged3.txt 2>&1
wc -l $OUT/*
