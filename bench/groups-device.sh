#!/bin/bash
# groups-device.sh - one device run for sort.group_size (issue 16's
# larger groups, bench/results/2026-11-24-cpu-groups): the GPU parity
# suite, then the candidate settings' GPU time and AND on the issue's
# cases, so that the CPU's AND-per-pass figures can be turned into ms.
#
#   (CUDA build) bash scripts/device-bundle.sh    # binaries + libs + peer-inputs.h5 -> .dev
#   device run, carry [".dev"]: GD_PARTS=test bash bench/groups-device.sh
#   device run, carry [".dev"]: GD_PARTS=bench bash bench/groups-device.sh
#   (two calls: test_gpu's CPU references plus every candidate may pass
#   one command's 10 minutes)
#
# GD_PARTS picks sections (default "test bench"); GD_RUNS the timed runs
# per case (default 5, after one warm-up: bench_sort's median, CUDA
# events); GD_CANDIDATES replaces the candidate list (lines
# "label|key=value ...|case ...", a case being C1024, C2048, N16 or a
# bench_sort CASE), GD_BENCH_ARGS adds bench_sort options
# (--cpu: a dry run of the plumbing without a GPU). Results: $OUT/groups.jsonl (one bench_sort line per candidate
# and case, "label" added), $OUT/test_gpu.log, and $OUT/table.txt, printed
# last. Cases: the peers' colors_1024 and colors_2048 (the issue's AND
# targets are on these) and cuplas gen normals 1024^2 x 16.
set -u
FINAL=${OUT:-$PWD}; OUT=/tmp/gd-results; rm -rf $OUT; mkdir -p $OUT $FINAL
export LD_LIBRARY_PATH=$PWD/.dev/lib
NEW=$PWD/.dev/bin
PARTS=" ${GD_PARTS:-test bench} "
RUNS=${GD_RUNS:-5}
part() { case "$PARTS" in *" $1 "*) return 0;; esac; return 1; }
S=$OUT/table.txt; : > $S
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; nproc; } > $OUT/gpu.txt
cat $OUT/gpu.txt | tee -a $S
PEER=$PWD/.dev/peer-inputs.h5
C1024=$PEER:/colors_1024 C2048=$PEER:/colors_2048 N16=normal:1024x1024x16

if part test; then
    ( time $NEW/test_gpu ) > $OUT/test_gpu.log 2>&1
    echo "test_gpu rc=$? $(grep -E '^\[  (PASSED|FAILED) \]' $OUT/test_gpu.log | tr '\n' ' ')" | tee -a $S
    grep -E "^\[  FAILED  \]|parity .*group|FAIL" $OUT/test_gpu.log | head -20 | tee -a $S
fi

# label | --set arguments | cases. Today's presets first, then group
# sizes on the default, then cheaper controls that keep most of the gain
# (fewer configurations, an earlier stop), then `fast` and `best` with
# larger groups. CPU AND at 1024^2 x 3 (bench/results/2026-11-24-cpu-groups):
# g8 3.184 (894 passes), g16 3.130 (903), g16-c1..2 3.146 (474),
# g16-ib1e-2 3.258 (344), fast-g8 3.569 (244), fast-g16 3.373 (214).
DEFAULT_CANDIDATES="default||C1024 C2048 N16
g8|sort.group_size=8|C1024 C2048 N16
g16|sort.group_size=16|C1024 C2048 N16
g16-c1..2|sort.group_size=16 sort.min_configs=1 sort.max_configs=2|C1024 C2048 N16
g16-c1..3|sort.group_size=16 sort.min_configs=1 sort.max_configs=3|C1024 C2048
g16-ib1e-2|sort.group_size=16 sort.improvement_break=1e-2|C1024 C2048 N16
g8-c1..2|sort.group_size=8 sort.min_configs=1 sort.max_configs=2|C1024 C2048
fast|sort.preset=fast|C1024 C2048
fast-g8|sort.preset=fast sort.group_size=8|C1024 C2048
fast-g16|sort.preset=fast sort.group_size=16|C1024 C2048
fast-g8-d0.8|sort.preset=fast sort.group_size=8 sort.radius_decay=0.8|C1024
fast-g16-d0.8|sort.preset=fast sort.group_size=16 sort.radius_decay=0.8|C1024
best|sort.preset=best|C1024
best-g8|sort.preset=best sort.group_size=8|C1024
best-g16|sort.preset=best sort.group_size=16|C1024
best-g16-d0.98|sort.preset=best sort.group_size=16 sort.radius_decay=0.98|C1024
best-g16-d0.995|sort.preset=best sort.group_size=16 sort.radius_decay=0.995|C1024"
CANDIDATES=${GD_CANDIDATES:-$DEFAULT_CANDIDATES}

if part bench; then
    while IFS='|' read -r label sets cases; do
        [ -n "$label" ] || continue
        args=()
        for kv in $sets; do args+=(--set "$kv"); done
        # one bench_sort per case: a slow candidate cannot hold up the rest
        for c in $cases; do
            case $c in C1024) c=$C1024 ;; C2048) c=$C2048 ;; N16) c=$N16 ;; esac
            timeout 300 $NEW/bench_sort ${GD_BENCH_ARGS:-} --runs $RUNS "${args[@]}" "$c" 2>>$OUT/bench.err |
                sed "s/^{/{\"label\":\"$label\",\"sets\":\"$sets\",/" >> $OUT/groups.jsonl
            [ "${PIPESTATUS[0]}" = 0 ] || echo "{\"label\":\"$label\",\"case\":\"$c\",\"error\":\"rc ${PIPESTATUS[0]}\"}" >> $OUT/groups.jsonl
        done
    done <<<"$CANDIDATES"
    python3 - $OUT/groups.jsonl <<'PY' | tee -a $S
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
print("%-16s %-28s %9s %9s %8s %7s %6s" % ("label", "case", "device_ms", "wall_ms", "AND", "passes", "levels"))
for d in rows:
    if "device_ms" not in d:
        print("%-16s %-28s %s" % (d.get("label"), d.get("case"), d.get("error", "?")))
        continue
    case = d["case"].split(":")[-1] if ".h5:" in d["case"] else d["case"]
    print("%-16s %-28s %9.1f %9.1f %8.4f %7d %6d" % (d["label"], case, d["device_ms"], d["wall_ms"],
                                                    d["and_after"], d["passes"], d["levels"]))
PY
fi
tar czf $FINAL/gd-results.tgz -C /tmp gd-results
cp $S $FINAL/table.txt
cat $S
