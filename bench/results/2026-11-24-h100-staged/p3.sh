#!/bin/bash
export LD_LIBRARY_PATH=$PWD/.dev/lib
B=$PWD/.dev/bin
M=smsp__inst_executed.sum,sm__cycles_elapsed.avg,smsp__cycles_active.avg
for r in barrier short_scoreboard long_scoreboard mio_throttle math_pipe_throttle wait not_selected selected dispatch_stall no_instruction lg_throttle branch_resolving drain; do M=$M,smsp__average_warps_issue_stalled_${r}_per_issue_active.ratio; done
ncu --kernel-name regex:local_staged --launch-skip 40 --launch-count 1 --metrics $M $B/bench_sort --runs 1 normal:1024x1024x16 > $OUT/stall16.txt 2>&1
ncu --kernel-name regex:local_staged --launch-skip 100 --launch-count 1 --metrics $M $B/bench_sort --runs 1 colors:2048x2048 > $OUT/stall3.txt 2>&1
ncu --kernel-name regex:level_kernel --launch-skip 30 --launch-count 1 --metrics $M $B/bench_sort --runs 1 normal:1024x1024x16 > $OUT/stall16-level.txt 2>&1
for f in stall16 stall3 stall16-level; do echo "== $f"; grep -E "stalled|inst_executed|cycles" $OUT/$f.txt | sed 's/smsp__average_warps_issue_stalled_//; s/_per_issue_active.ratio//' | awk '{print $1, $NF}' | sort -k2 -g -r | head -9; done
