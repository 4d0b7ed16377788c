#!/bin/bash
# ab-device.sh - one device run that checks a build against an older one
# on the same GPU: the new build's GPU test suite, its outputs byte for byte
# against the old build's, bench_sort's default cases and the one-GPU
# pipeline benchmark (collections A and B), old and new side by side.
#
#   scripts/device-bundle.sh                 # the new build -> .dev/bin
#   (copy the old build's bundle to .dev/old/bin, its libraries to .dev/lib)
#   device run, carry [".dev"]:  bash scripts/ab-device.sh
#
# Results: JSON lines and logs in one archive, $OUT/ab-results.tgz (the
# device returns few files), and the table printed last in $OUT/table.txt.
# AB_LIGHT=1 skips compute-sanitizer; AB_PARTS picks sections (default
# "test compare bench pipe"), so that a plan can span two device calls.
set -u
PARTS=" ${AB_PARTS:-test compare bench pipe} "
part() { case "$PARTS" in *" $1 "*) return 0;; esac; return 1; }
FINAL=${OUT:-$PWD}; OUT=/tmp/ab-results; rm -rf $OUT; mkdir -p "$OUT"
export LD_LIBRARY_PATH=$PWD/.dev/lib
NEW=$PWD/.dev/bin OLD=$PWD/.dev/old/bin P=$PWD/.dev/peer-inputs.h5
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; nproc; } > "$OUT/gpu.txt"
S="$OUT/summary.txt"; : > "$S"

# 1. the GPU test suite of the new build (every kernel against its CPU twin),
# and the solve-layout variants of bench/bench_solve (each checked against the CPU)
if part test; then
( time $NEW/test_gpu ) > "$OUT/test_gpu.log" 2>&1
echo "test_gpu rc=$? $(grep -E '^\[  (PASSED|FAILED) \]' "$OUT/test_gpu.log" | tr '\n' ' ')" | tee -a "$S"
if [ -z "${AB_LIGHT:-}" ]; then
    CUPLAS_TEST_QUICK=1 timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 $NEW/test_gpu \
        > "$OUT/memcheck.log" 2>&1
    echo "memcheck rc=$? $(grep -h 'ERROR SUMMARY' "$OUT/memcheck.log" | tail -1)" | tee -a "$S"
fi
[ -x $NEW/bench_solve ] && { $NEW/bench_solve > "$OUT/bench-solve.txt" 2>&1
    echo "bench_solve rc=$?" | tee -a "$S"; tail -12 "$OUT/bench-solve.txt"; }
fi

# 2. bytes: the new build on the GPU against the old one on the CPU
if part compare; then
PATH=$NEW:$PATH bash scripts/compare-outputs.sh $OLD/cuplas $NEW/cuplas --backend gpu > "$OUT/compare-gpu.txt" 2>&1
echo "compare-outputs (old cpu vs new gpu) rc=$? $(tail -1 "$OUT/compare-gpu.txt")" | tee -a "$S"
grep -m5 FAIL "$OUT/compare-gpu.txt"
fi

# 3. bench_sort's default cases, old then new, then old again (drift check)
# the peers' colour grids when carried (.dev/peer-inputs.h5, 16 MiB), else
# generated colour grids of the same sizes (an A/B needs only the same input)
PC="$P:/colors_256 $P:/colors_512 $P:/colors_1024 $P:/colors_2048"
[ -f "$P" ] || PC="colors:256x256 colors:512x512 colors:1024x1024 colors:2048x2048"
CASES="$PC colors:4096x4096
normal:256x256x16 normal:512x512x16 normal:1024x1024x16 normal:2048x2048x16 normal:4096x4096x16
colors:1000x1000 colors:1337x1337 colors:1024x512 colors:512x1024 normal:1024x2048x16"
part bench && for tag in old new old2; do
    b=$( [ $tag = new ] && echo $NEW || echo $OLD )
    $b/bench_sort --runs 5 $CASES 2>&1 | sed "s/^{/{\"build\":\"$tag\",/" >> "$OUT/bench-sort.jsonl"
done

# 4. the one-GPU pipeline, old then new, on the same generated inputs
part pipe && for tag in old new; do
    b=$( [ $tag = new ] && echo $NEW || echo $OLD )
    OUT=$OUT/pipe-$tag PIPE_BIN=$b PIPE_KEEP=1 PIPE_QUICK=1 PIPE_PURE=1 \
        bash scripts/pipeline-bench.sh > "$OUT/pipe-$tag.txt" 2>&1
    echo "pipeline $tag rc=$?" | tee -a "$S"
done

python3 - "$OUT" > "$OUT/table.txt" <<'PY'
import json, sys, collections
out = sys.argv[1]
rows = collections.defaultdict(dict)
for line in (open(out + "/bench-sort.jsonl") if __import__("os").path.exists(out + "/bench-sort.jsonl") else []):
    try:
        d = json.loads(line)
    except ValueError:
        continue
    if "device_ms" in d:
        rows[d["case"].split("/")[-1]][d["build"]] = (d["device_ms"], d["and_after"])
print("%-20s %10s %10s %10s  %s" % ("case", "old ms", "new ms", "old2 ms", "AND old/new"))
for case, r in rows.items():
    g = lambda t: "%10.1f" % r[t][0] if t in r else "%10s" % "-"
    a = "%.4f/%.4f" % (r["old"][1], r["new"][1]) if "old" in r and "new" in r else "-"
    print("%-20s %s %s %s  %s" % (case, g("old"), g("new"), g("old2"), a))
for tag in ("old", "new"):
    try:
        for line in open("%s/pipe-%s/pipeline.jsonl" % (out, tag)):
            d = json.loads(line)
            if "run" in d:
                print("pipe %-4s %-8s gps %-8s steady %-8s rc %s" % (tag, d["run"], d["grids_per_s"],
                      d["grids_per_s_steady"], d["rc"]))
            elif d.get("mode") == "pure_sort":
                print("pipe %-4s pure %-26s lanes %2d gps %.1f" % (tag, d["case"], d["lanes"], d["grids_per_s"]))
    except OSError:
        print("pipe", tag, "no results")
PY
cat "$S" >> "$OUT/table.txt"
tar czf "$FINAL/ab-results.tgz" -C /tmp ab-results
cp "$OUT/table.txt" "$FINAL/table.txt"
cat "$OUT/table.txt"
