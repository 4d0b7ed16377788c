#!/bin/bash
# pipeline-bench.sh - the multi-GPU plan of issue 4 in one device run
# (nvidia-h200-x4): determinism across 1/2/4 GPUs and the CPU, pure-sort
# vs end-to-end throughput for collections A (64 x 1024^2 x 16) and B
# (512 x 256^2 x 3), scaling on 1, 2 and 4 GPUs. Results: JSON lines in
# $OUT/pipeline.jsonl, logs in $OUT. Run after scripts/device-bundle.sh.
set -u
OUT=${OUT:-pipeline-results}; mkdir -p "$OUT"
export LD_LIBRARY_PATH=$PWD/.dev/lib
# PIPE_BIN: the folder of the binaries (default .dev/bin); PIPE_KEEP=1 keeps
# the inputs an earlier run generated in the work folder (A/B of two builds)
B=${PIPE_BIN:-$PWD/.dev/bin}; W=/tmp/cuplas-pipe
if [ -n "${PIPE_KEEP:-}" ] && [ -d $W ]; then rm -rf $W/out-* $W/logs; else rm -rf $W; fi
mkdir -p $W; cd $W
NG=$(nvidia-smi -L | wc -l); nvidia-smi -L > "$OUT/gpus.txt"; nproc >> "$OUT/gpus.txt"
meminfo() { awk '/^(Dirty|Writeback|MemAvailable|Cached):/ {printf "%s %d MiB  ", $1, $2 / 1024}' /proc/meminfo; }
# the host: CPU, memory limits, the filesystem outputs go to, dirty-page limits
{ lscpu | grep -E "Model name|Socket|NUMA node\(s\)"; df -T /tmp | tail -1
  cat /sys/fs/cgroup/memory.max 2>/dev/null; sysctl vm.dirty_ratio vm.dirty_background_ratio
  echo "THP: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)"
  meminfo; echo; } > "$OUT/diag.txt" 2>&1
J="$OUT/pipeline.jsonl"; : > "$J"
L=$W/logs; mkdir -p $L   # logs go back as one archive (the device returns few files)
# outputs: uncompressed, no per-file fsync (page cache, like the inputs) unless asked
DEFLATE=${PIPE_DEFLATE:-0} FSYNC=${PIPE_FSYNC:-false}
LA=${PIPE_LANES_A:-12} LB=${PIPE_LANES_B:-16}
COLS=${PIPE_ONLY:-A B}   # PIPE_ONLY=B: the end-to-end runs of collection B alone
# PIPE_A_LONG=N: also N files of 8 A grids (N > 8) run on 1 and all GPUs, long
# enough for a steady state on many lanes (64 grids on 48 lanes is ~1.3 waves)
ALONG=${PIPE_A_LONG:-0}
# PIPE_B_LONG=N: also N - 1 more files of 512 B grids, run on 1 and all GPUs
BLONG=${PIPE_B_LONG:-0}
# PIPE_PURE=1: the pure-sort figures even with PIPE_QUICK (A 4 lanes, B 16
# lanes; 1 and all GPUs)
# PIPE_SYNC=1: sync (flush earlier runs' outputs to disk) before each run, so
# that no run pays for the dirty pages of the ones before it
# PIPE_EXTRA="--set K=V ...": added to every `cuplas run` (e.g. an older
# build's settings in an A/B)
# PIPE_REPEAT=N: the end-to-end runs N times (names -rK from the second on)
REPEAT=${PIPE_REPEAT:-1}
has() { case " $COLS " in *" $1 "*) return 0;; esac; return 1; }
note() { echo "$*" | tee -a "$OUT/log.txt"; }
gpulist() { seq -s, 0 $(($1 - 1)); }
GPUS=$(printf "%s\n" 1 2 $NG | awk -v n=$NG '$1 <= n' | sort -nu | tr '\n' ' ')   # 1, 2 and all, each once
GPUS2=$(printf "%s\n" 2 $NG | awk -v n=$NG '$1 <= n' | sort -nu | tr '\n' ' ')
run_cfg() { # name file gpus lanes extra...
    local name=$1 file=$2 g=$3 lanes=$4; shift 4
    if [ -n "${PIPE_SYNC:-}" ]; then
        local s0=$(date +%s.%N); sync; note "sync before $name: $(awk "BEGIN {print $(date +%s.%N) - $s0}") s"
    fi
    echo "$name before: $(meminfo)" >> "$OUT/diag.txt"
    local t0=$(date +%s.%N)
    $B/cuplas run cfg.yaml --set "inputs=[{files: $file}]" --set output.dir=out-$name \
        --set "backend.gpus=[$( [ "$g" = cpu ] || gpulist $g )]" --set backend.lanes=$lanes \
        --set backend.device=$( [ "$g" = cpu ] && echo cpu || echo gpu ) \
        --set output.deflate=$DEFLATE --set output.fsync=$FSYNC ${PIPE_EXTRA:-} "$@" \
        --log-format json > "$L/run-$name.log" 2>&1
    local rc=$? t1=$(date +%s.%N)
    # wall_s: the whole process (start-up, CUDA init, planning); run_s: the
    # runner from its start to the last job (lanes' CUDA set-up included)
    python3 - "$L/run-$name.log" <<PY | tee -a "$J"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
done = sorted(e["time"] for e in ev if e["event"] == "job_done")
n = len(done)
run = [e["seconds"] for e in ev if e["event"] == "summary"]
run_s = run[0] if run else float("nan")
# steady state: completions from the 10 % to the 90 % mark (no start-up, no tail)
a, b = n // 10, 9 * n // 10
steady = (b - a) / (done[b] - done[a]) if n >= 10 and done[b] > done[a] else None
print(json.dumps({"run": "$name", "gpus": "$g", "lanes": $lanes, "rc": $rc, "jobs_done": n,
                  "wall_s": round($t1 - $t0, 3), "grids_per_s": round(n / ($t1 - $t0), 2),
                  "run_s": run_s, "grids_per_s_run": round(n / run_s, 2) if run else None,
                  "grids_per_s_steady": round(steady, 2) if steady else None,
                  "extra": "$*"}))
PY
}
cat > cfg.yaml <<'YAML'
inputs:
  - files: none.h5
output:
  dir: out
  overwrite: overwrite
backend:
  device: gpu
YAML
# 1. determinism: 1, 2, 4 GPUs and the CPU give the same bytes (PIPE_QUICK=1 skips 1 and 3;
# PIPE_DET=1 keeps 1)
[ -n "${PIPE_QUICK:-}" ] && [ -z "${PIPE_DET:-}" ] || {
$B/cuplas gen --kind colors --size 128x128 --count 12 --seed 5 small.h5 >/dev/null
$B/cuplas gen --kind normal --size 96x80 --channels 16 --count 4 --seed 6 small16.h5 >/dev/null
for g in $GPUS; do run_cfg det-g$g "small*.h5" $g 4; done
run_cfg det-cpu "small*.h5" cpu 1
for g in $GPUS2 cpu; do
    r=$($B/cmp_outputs out-det-g1 out-det-$( [ $g = cpu ] && echo cpu || echo g$g ) | tail -1)
    note "determinism g1 vs $g: $r"
    echo "{\"check\":\"bytes g1 vs $g\",\"result\":\"$r\"}" >> "$J"
done
}
# 2. collections (chunked + shuffle + deflate 1, read from the page cache)
# A as 8 files of 8 grids, generated in parallel (gen compresses on one core)
t0=$(date +%s)
NA=$(( ALONG > 8 ? ALONG : 8 ))
need() { [ -z "${PIPE_KEEP:-}" ] || [ ! -s "$1" ]; }   # inputs to (re)generate
has A && for i in $(seq 0 $((NA - 1))); do   # A0..A7 are collection A, AL8.. the long extra
    need $( [ $i -lt 8 ] && echo A$i.h5 || echo AL$i.h5 ) && $B/cuplas gen --kind normal --size 1024x1024 --channels 16 --count 8 --deflate 1 --seed $((i + 1)) \
        $( [ $i -lt 8 ] && echo A$i.h5 || echo AL$i.h5 ) >/dev/null &
done; wait
t1=$(date +%s); need Bc.h5 && $B/cuplas gen --kind colors --size 256x256 --count 512 --deflate 1 --seed 2 Bc.h5 >/dev/null &
has B && for i in $(seq 1 $((BLONG - 1))); do
    need BL$i.h5 && $B/cuplas gen --kind colors --size 256x256 --count 512 --deflate 1 --seed $((i + 2)) BL$i.h5 >/dev/null &
done; wait
t2=$(date +%s); note "gen A $((t1 - t0)) s, B $((t2 - t1)) s, $(du -shc A?.h5 Bc.h5 2>/dev/null | tail -2 | tr '\n' ' ')"
cat A*.h5 B*.h5 > /dev/null 2>&1
vmstat 1 > "$OUT/vmstat.txt" 2>&1 & VMSTAT=$!   # after the generators' `wait`
# the HDF5 work of one B job, phase by phase, with and without cuplas_h5_tune
if has B; then
    $B/bench_h5 --rounds 2 Bc.h5 h5b | tee -a "$J"
    BENCH_H5_UNTUNED=1 $B/bench_h5 --rounds 2 Bc.h5 h5b-untuned | tee -a "$J"
fi
# 3. pure-sort throughput (no HDF5, features already quantised in pinned memory)
[ -n "${PIPE_QUICK:-}" ] || {
for lanes in 1 4 12; do
    $B/bench_sort --throughput 64 --lanes $lanes normal:1024x1024x16 | tee -a "$J"
done
for lanes in 1 8 16; do
    $B/bench_sort --throughput 512 --lanes $lanes colors:256x256 | tee -a "$J"
done
for g in $GPUS2; do
    $B/bench_sort --throughput $((64 * g)) --lanes 4 --gpus $g normal:1024x1024x16 | tee -a "$J"
    $B/bench_sort --throughput $((512 * g)) --lanes 16 --gpus $g colors:256x256 | tee -a "$J"
done
}
pure() { # tag: the reduced pure-sort set
    for g in 1 $NG; do
        $B/bench_sort --throughput $((64 * g)) --lanes 4 --gpus $g normal:1024x1024x16 | sed "s/^{/{\"tag\":\"$1\",/" | tee -a "$J"
        $B/bench_sort --throughput $((1024 * g)) --lanes 16 --gpus $g colors:256x256 | sed "s/^{/{\"tag\":\"$1\",/" | tee -a "$J"
    done
}
[ -n "${PIPE_QUICK:-}" ] && [ -n "${PIPE_PURE:-}" ] && pure ordered
# 4. end to end, 1 / 2 / 4 GPUs
for k in $(seq 1 $REPEAT); do
    rs=$( [ $k = 1 ] || echo -r$k )
    for g in $GPUS; do
        has A && run_cfg A-g$g$rs "A?.h5" $g $LA
        has B && run_cfg B-g$g$rs Bc.h5 $g $LB
    done
done
# more lanes: more host threads per GPU (PIPE_LANES="A:8 B:16")
for v in ${PIPE_LANES:-}; do
    c=${v%%:*} l=${v##*:}; f=$( [ $c = A ] && echo "A?.h5" || echo Bc.h5 )
    run_cfg $c-g1-l$l "$f" 1 $l
    run_cfg $c-g$NG-l$l "$f" $NG $l
done
if has A && [ "$ALONG" -gt 8 ]; then
    run_cfg Along-g1 "[A?.h5, AL*.h5]" 1 $LA
    run_cfg Along-g$NG "[A?.h5, AL*.h5]" $NG $LA
    r=$($B/cmp_outputs out-Along-g1 out-Along-g$NG | tail -1); note "bytes Along g1 vs g$NG: $r"
    echo "{\"check\":\"bytes Along g1 vs g$NG\",\"result\":\"$r\"}" >> "$J"
fi
if has B && [ "$BLONG" -gt 1 ]; then
    run_cfg Blong-g1 "[Bc.h5, BL*.h5]" 1 $LB
    run_cfg Blong-g$NG "[Bc.h5, BL*.h5]" $NG $LB
    r=$($B/cmp_outputs out-Blong-g1 out-Blong-g$NG | tail -1); note "bytes Blong g1 vs g$NG: $r"
    echo "{\"check\":\"bytes Blong g1 vs g$NG\",\"result\":\"$r\"}" >> "$J"
fi
for c in $COLS; do for g in $GPUS2; do
    r=$($B/cmp_outputs out-$c-g1 out-$c-g$g | tail -1); note "bytes $c g1 vs g$g: $r"
    echo "{\"check\":\"bytes $c g1 vs g$g\",\"result\":\"$r\"}" >> "$J"
done; done
# the cost of compressed, fsynced outputs (the config defaults: deflate 4)
[ -n "${PIPE_QUICK:-}" ] || {
    run_cfg A-g1-deflate1-fsync "A?.h5" 1 $LA --set output.deflate=1 --set output.fsync=true
    run_cfg B-g1-deflate4-fsync Bc.h5 1 $LB --set output.deflate=4 --set output.fsync=true
}
# PIPE_PERF=1: where the HDF5 thread's time goes in a long B run on all GPUs
# (a flat profile of the thread named cuplas-h5, if perf is installed)
if [ -n "${PIPE_PERF:-}" ] && has B && [ "$BLONG" -gt 1 ]; then
    if command -v perf > /dev/null; then
        perf record -F 4999 -o $W/perf.data -- $B/cuplas run cfg.yaml \
            --set "inputs=[{files: [Bc.h5, BL*.h5]}]" --set output.dir=out-Bperf \
            --set "backend.gpus=[$(gpulist $NG)]" --set backend.lanes=$LB --set output.deflate=$DEFLATE \
            --set output.fsync=$FSYNC --log-format json > "$L/run-Bperf.log" 2>&1
        for c in cuplas-h5 cuplas-pool; do
            perf report -i $W/perf.data --comm $c --no-children --sort dso,sym --stdio 2>/dev/null |
                grep -v "^#" | grep -v "^$" | head -45 > "$OUT/perf-$c.txt"
        done
        perf report -i $W/perf.data --sort comm --stdio 2>/dev/null | grep -v "^#" | grep -v "^$" |
            head -20 > "$OUT/perf-comm.txt"
    else
        note "perf: not installed"
    fi
fi
grep -h device_summary "$L"/run-?-g1.log | cut -c1-400 > "$OUT/device-summaries.txt"
# per-run stage medians (seconds per job, lock waits included)
python3 - "$L" <<'PY' | tee "$OUT/stages.txt"
import glob, json, os, statistics, sys
for f in sorted(glob.glob(os.path.join(sys.argv[1], "run-*.log"))):
    ev = []
    for line in open(f):
        try:
            e = json.loads(line)
        except ValueError:
            continue
        if e.get("event") == "job_done":
            ev.append(e)
    if ev:
        med = {k: statistics.median(e.get(k, 0) for e in ev)
               for k in ("read_s", "prep_s", "sort_s", "write_s", "encode_s", "h5_wait_s",
                         "h5_s", "helper_s", "gpu_sort_ms")}
        print(os.path.basename(f), len(ev), " ".join("%s=%.4g" % kv for kv in med.items()))
PY
kill $VMSTAT 2>/dev/null
mv "$OUT/vmstat.txt" "$OUT/diag.txt" "$L/" 2>/dev/null
tar czf "$OUT/logs.tgz" -C "$L" .
cat "$J"
