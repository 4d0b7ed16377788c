#!/bin/bash
# gpu-features.sh - one device run for the user-facing features: the GPU
# suite and bytes against the older build, a real 3DGS scene on the GPU,
# the sort presets' time and quality, and default-config throughput
# (compressed, fsynced outputs) against pure-sort throughput.
#
#   scripts/device-bundle.sh bench/bench_solve    # NEW -> .dev/bin
#   (OLD build in .dev/old/bin; the plant scene in .dev/plant.splat)
#   device run, carry [".dev"]: bash scripts/gpu-features.sh
#
# GF_PARTS picks sections (default "test scene presets defaults"). Results:
# $OUT/gf-results.tgz (JSON lines, logs) and $OUT/table.txt, printed last.
set -u
FINAL=${OUT:-$PWD}; OUT=/tmp/gf-results; rm -rf $OUT; mkdir -p $OUT
export LD_LIBRARY_PATH=$PWD/.dev/lib
NEW=$PWD/.dev/bin OLD=$PWD/.dev/old/bin SRC=$PWD
PARTS=" ${GF_PARTS:-test scene presets defaults pipe} "
part() { case "$PARTS" in *" $1 "*) return 0;; esac; return 1; }
S=$OUT/summary.txt; : > $S
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; nproc; } > $OUT/gpu.txt
W=/tmp/gf-work; rm -rf $W; mkdir -p $W; cd $W
# seconds of a job stage from a JSON log: stage LOG FIELD
stage() { python3 -c "import json,sys
for l in open(sys.argv[1]):
    if l.startswith('{'):
        d = json.loads(l)
        if d.get('event') == 'job_done': print(round(d[sys.argv[2]], 4))" "$1" "$2" | head -1; }

if part test; then
    ( time $NEW/test_gpu ) > $OUT/test_gpu.log 2>&1
    echo "test_gpu rc=$? $(grep -E '^\[  (PASSED|FAILED) \]' $OUT/test_gpu.log | tr '\n' ' ')" | tee -a $S
    # OLD is 0.2.0 or older: NEW gets the old default first (0.3.0 changed it)
    [ -x $OLD/cuplas ] && COMPARE_IGNORE_STORAGE=2 COMPARE_NEW_PRE="sort.improvement_break=1e-3 sort.max_passes=2" \
        PATH=$NEW:$PATH bash $SRC/scripts/compare-outputs.sh $OLD/cuplas \
        $NEW/cuplas --backend gpu --quick > $OUT/compare-gpu.txt 2>&1
    [ -x $OLD/cuplas ] && echo "compare-outputs quick (old cpu vs new gpu) rc=$? $(tail -1 $OUT/compare-gpu.txt)" | tee -a $S
fi

if part scene && [ -f $SRC/.dev/plant.splat ]; then
    # the SOG preset on the plant scene, GPU then CPU (16 cores), each twice
    for dev in gpu cpu; do for k in 1 2; do
        $NEW/cuplas run $SRC/configs/sog.yaml --set "inputs=[{files: $SRC/.dev/plant.splat}]" \
            --set output.dir=out-$dev-$k --set backend.device=$dev --log-format json \
            > plant-$dev-$k.log 2>&1
        echo "plant (configs/sog.yaml) $dev run $k: rc=$? read_s $(stage plant-$dev-$k.log read_s)" \
             "prep_s $(stage plant-$dev-$k.log prep_s) sort_s $(stage plant-$dev-$k.log sort_s)" \
             "write_s $(stage plant-$dev-$k.log write_s) AND $(stage plant-$dev-$k.log and_before)" \
             "-> $(stage plant-$dev-$k.log and_after)" | tee -a $S
    done; done
    cp plant-*.log $OUT/ 2>/dev/null
fi

if part presets; then
    # GF_PRESETS: names, or name=key=value,key=value for a variant (labelled
    # by its name); GF_CASES: bench_sort cases (the peers' colours when the
    # carried tree has .dev/peer-inputs.h5; without its 12 MiB colors_2048,
    # which the 64 MiB carry limit may not allow, generated colours stand in)
    P=$SRC/.dev/peer-inputs.h5
    DEFCASES="colors:1024x1024 colors:2048x2048 normal:1024x1024x16"
    if [ -f $P ]; then
        DEFCASES="$P:/colors_256 $P:/colors_512 $P:/colors_1024 colors:2048x2048 normal:1024x1024x16 normal:2048x2048x16"
        h5ls $P/colors_2048 > /dev/null 2>&1 && DEFCASES=${DEFCASES/colors:2048x2048/$P:/colors_2048}
    fi
    for spec in ${GF_PRESETS:-fast default best}; do
        p=${spec%%=*} label=$spec sets=""
        case $spec in *=*) rest=${spec#*=}; label=${spec%%=*}; p=${label%%+*}
            for kv in ${rest//,/ }; do sets="$sets --set sort.$kv"; done;; esac
        $NEW/bench_sort --runs 5 --set sort.preset=$p $sets ${GF_CASES:-$DEFCASES} 2>&1 \
            | sed "s|^{|{\"preset\":\"$p\",\"label\":\"$label\",|" >> $OUT/presets.jsonl
    done
    python3 - $OUT/presets.jsonl <<'PY' | tee -a $S
import json, sys
for l in open(sys.argv[1]):
    try: d = json.loads(l)
    except ValueError: continue
    if "device_ms" in d:
        print("preset %-14s %-22s %8.1f ms  AND %.4f  passes %d" % (d["label"], d["case"].split("/")[-1], d["device_ms"], d["and_after"], d["passes"]))
PY
fi

if part defaults; then
    # one file, the whole process, default config: OLD and NEW
    $NEW/cuplas gen --kind colors --size 1024x1024 c1024.h5 > /dev/null
    for b in old new; do bin=$( [ $b = new ] && echo $NEW || echo $OLD )
        [ -x $bin/cuplas ] || continue
        $bin/cuplas sort c1024.h5 w.h5 --force > /dev/null 2>&1   # warm the page cache
        for k in 1 2 3 4 5; do
            t0=$(date +%s.%N); $bin/cuplas sort c1024.h5 s-$b.h5 --force --log-format json > sort-$b-$k.log 2>&1
            echo "$b $(python3 -c "print(round($(date +%s.%N) - $t0, 3))")"
        done
    done > sort1024.txt
    python3 - sort1024.txt <<'PY' | tee -a $S
import sys, statistics
t = {}
for l in open(sys.argv[1]):
    b, s = l.split(); t.setdefault(b, []).append(float(s))
for b, v in t.items():
    print("cuplas sort 1024^2x3 whole process (%s): median %.3f s of %s" % (b, statistics.median(v), v))
PY
    # big grids, default outputs: whole process against the sort
    for n in 4096; do
        $NEW/cuplas gen --kind normal --size ${n}x$n --channels 16 --deflate 0 n$n.h5 > /dev/null
        t0=$(date +%s.%N); $NEW/cuplas sort n$n.h5 s$n.h5 --force --log-format json > big-$n.log 2>&1
        echo "normal ${n}^2x16 default outputs: process $(python3 -c "print(round($(date +%s.%N) - $t0, 2))") s," \
             "sort_s $(stage big-$n.log sort_s) read_s $(stage big-$n.log read_s) write_s $(stage big-$n.log write_s)" | tee -a $S
    done
    cp sort-new-1.log big-*.log sort1024.txt $OUT/
fi
if part pipe; then
    # collections A and B with the default config (lanes 0 = by grid size, deflate 1, fsync)
    ( cd $SRC && OUT=$OUT/pipe PIPE_BIN=$NEW PIPE_QUICK=1 PIPE_PURE=1 PIPE_DEFLATE=1 PIPE_FSYNC=true \
        PIPE_LANES_A=0 PIPE_LANES_B=0 bash scripts/pipeline-bench.sh > $OUT/pipe.txt 2>&1 )
    # the same outputs with the lanes picked by hand (A 12, B 16), as RESULTS.md's runs
    ( cd $SRC && OUT=$OUT/pipe2 PIPE_BIN=$NEW PIPE_QUICK=1 PIPE_KEEP=1 PIPE_DEFLATE=1 PIPE_FSYNC=true \
        bash scripts/pipeline-bench.sh > $OUT/pipe2.txt 2>&1 )
    cat $OUT/pipe/pipeline.jsonl $OUT/pipe2/pipeline.jsonl > $OUT/pipe-all.jsonl
    python3 - $OUT/pipe-all.jsonl <<'PY' | tee -a $S
import json, sys
for l in open(sys.argv[1]):
    d = json.loads(l)
    if "run" in d:
        print("deflate 1 + fsync, lanes %-2s %-6s whole %s grids/s, steady %s (rc %s)" % (d["lanes"], d["run"], d["grids_per_s"], d["grids_per_s_steady"], d["rc"]))
    elif d.get("mode") == "pure_sort":
        print("pure sort %-24s lanes %d: %.1f grids/s" % (d["case"], d["lanes"], d["grids_per_s"]))
PY
fi
cp $S $OUT/table.txt
tar czf $FINAL/gf-results.tgz -C /tmp gf-results
cp $OUT/table.txt $FINAL/table.txt
cat $OUT/table.txt
