#!/bin/bash
# presets-device.sh - one device call: the presets' time and AND (median of
# 5 after a warm-up, bench_sort) on the peers' colours and generated grids,
# sort.* variants on colors_1024 over several seeds, and one-file
# `cuplas sort` processes.
#
#   scripts/device-bundle.sh; cp /tmp/peers-small.h5 .dev/peer-inputs.h5
#   device run, carry [".dev"]: PD_PARTS="presets variants one" bash bench/presets-device.sh
#
# PD_PRESETS: presets of the table; PD_CASES: its cases (PEERS: the carried
# peer file); PD_VARIANTS: "label=key=value,key=value ..." for the variants
# part, PD_SEEDS its seeds. JSON lines in $OUT/presets.jsonl, table last.
set -u
FINAL=${OUT:-$PWD}; mkdir -p $FINAL
export LD_LIBRARY_PATH=$PWD/.dev/lib
B=$PWD/.dev/bin PEERS=$PWD/.dev/peer-inputs.h5 SRC=$PWD
PARTS=" ${PD_PARTS:-presets variants one} "
part() { case "$PARTS" in *" $1 "*) return 0;; esac; return 1; }
J=$FINAL/presets.jsonl; : > $J
W=/tmp/pd-work; rm -rf $W; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $FINAL/gpu.txt
source "$SRC/bench/device-lib.sh"
tag() { sed "s/^{/{\"part\":\"$1\",\"label\":\"$2\",/" >> $J; }

if part presets; then
    CASES=${PD_CASES:-"$PEERS:/colors_256 $PEERS:/colors_512 $PEERS:/colors_1024 colors:2048x2048 normal:1024x1024x16 normal:2048x2048x16"}
    for pr in ${PD_PRESETS:-fast default best}; do
        $B/bench_sort --runs 5 --set sort.preset=$pr $CASES 2>/dev/null | tag presets $pr
    done
fi

if part variants; then
    for v in ${PD_VARIANTS:-}; do
        label=${v%%=*}; sets=()
        if [ "$label" != "$v" ]; then IFS=, read -ra kv <<< "${v#*=}"; for s in "${kv[@]}"; do sets+=(--set "sort.$s"); done; fi
        for seed in ${PD_SEEDS:-1337}; do
            $B/bench_sort --runs 5 "${sets[@]}" --set sort.seed=$seed $PEERS:/colors_1024 2>/dev/null |
                sed "s/^{/{\"seed\":$seed,/" | tag variants $label
        done
    done
fi

if part one; then
    $B/cuplas gen --kind colors --size 1024x1024 $W/c1024.h5 > /dev/null
    $B/cuplas sort $W/c1024.h5 $W/w.h5 --force > /dev/null 2>&1
    for k in 1 2 3 4 5; do
        t0=$(date +%s.%N)
        $B/cuplas sort $W/c1024.h5 $W/s1.h5 --force --log-format json --set logging.level=debug > $W/one-$k.log 2>&1
        t1=$(date +%s.%N)
        echo "{\"part\":\"one\",\"label\":\"default\",\"run\":$k,\"wall_s\":$(python3 -c "print(round($t1 - $t0, 3))"),\"job\":$(ev $W/one-$k.log job_done)}" >> $J
    done
fi

echo "== table"
python3 - $J <<'PY'
import json, sys, statistics
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith('{')]
for d in rows:
    if d["part"] == "presets":
        print("%-8s %-34s %9.1f ms  AND %.4f  passes %d" % (d["label"], d["case"][-34:], d["device_ms"], d["and_after"], d["passes"]))
lab = {}
for d in rows:
    if d["part"] == "variants":
        lab.setdefault(d["label"], []).append(d)
for l, v in lab.items():
    a = [d["and_after"] for d in v]
    print("%-12s colors_1024 %s (median %.4f, %.1f ms)" % (l, " ".join("%.4f" % x for x in a),
          statistics.median(a), statistics.median([d["device_ms"] for d in v])))
one = [d for d in rows if d["part"] == "one"]
if one:
    w = [d["wall_s"] for d in one]
    print("one-file cuplas sort 1024^2x3: %s (median %.3f s; sort %.3f s)" % (" ".join("%.3f" % x for x in w),
          statistics.median(w), statistics.median([d["job"].get("sort_s", 0) for d in one])))
PY
