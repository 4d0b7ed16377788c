#!/bin/bash
# Each run: wait for a quiet VM (1-min load < 0.3), time it, and report the CPU
# seconds other processes used meanwhile (from /proc/stat), so contended runs show.
cd /tmp/ev
F=out/academic_tarot_cards.vertex.h5
busy() { awk '/^cpu /{print ($2+$3+$4+$7+$8+$9)/100}' /proc/stat; }
run() { # label binary threads extra...
  local label=$1 bin=$2 t=$3; shift 3
  while awk '{exit !($1 >= 0.3)}' /proc/loadavg; do sleep 10; done
  local b0=$(busy)
  /usr/bin/time -o time.tmp -f "%e %U %S" env OMP_NUM_THREADS=$t ./$bin eval $F --scheme sog --codecs webp --json "$@" > "$label-t$t.json"
  local b1=$(busy)
  read wall user sys < time.tmp
  echo "$label threads=$t wall=$wall user=$user sys=$sys others_cpu_s=$(echo "$b1 - $b0 - $user - $sys" | bc)"
}
for rep in 1 2; do
for t in 2 1; do
  run before cuplas-before $t
  run after-all cuplas-after $t
  run after-sm cuplas-after $t --orders sorted,morton
done
done
