#!/bin/bash
# startup-device.sh - issue 17's start-up and big-grid write on one GPU:
# where a process's time goes, old build against new.
#
#   1. `cuplas sort` of one 1024^2 x 3 grid as a whole process, median of 5,
#      OLD and NEW; NEW's run_timing event (start-up, plan, GPU contexts,
#      the first sort's wait for its GPU, teardown)
#   2. 4096^2 x 16 and 8192^2 x 16 float32 with default outputs (deflate 1 +
#      shuffle, fsync): process wall time and the job's stages (read, prep,
#      sort, GPU sort, write = encode + HDF5), OLD and NEW, each twice
#   3. the progress line inside one long GPU sort (NEW, on a pseudo-terminal):
#      how many distinct "level k/n" the line showed before the sort ended
#   4. collections A and B with the default config (scripts/pipeline-bench.sh)
#   5. the CPU backend's write stage, OLD and NEW: 2048^2 x 16 with the sort
#      cut to one level (all cores), each twice
#
#   scripts/device-bundle.sh                     # NEW -> .dev/bin
#   (the OLD build's cuplas in .dev/old/bin, after the bundle: it wipes .dev)
#   device run, carry [".dev"]: bash bench/startup-device.sh
#
# SD_PARTS picks sections (default "test one big progress cpu pipe"), SD_BIG
# the big sizes (default "4096 8192"). Results: JSON lines in
# $OUT/startup.jsonl, logs in $OUT/sd-logs.tgz, and the table $OUT/table.txt,
# printed last. A device command stops at 10 minutes: run it in two calls,
# SD_PARTS="test one big progress cpu" (about 6 min) and SD_PARTS=pipe.
set -u
FINAL=${OUT:-$PWD}; R=/tmp/sd-results; rm -rf $R; mkdir -p $R
export LD_LIBRARY_PATH=$PWD/.dev/lib
NEW=$PWD/.dev/bin OLD=$PWD/.dev/old/bin SRC=$PWD
PARTS=" ${SD_PARTS:-test one big progress cpu pipe} "
BIG=${SD_BIG:-4096 8192}
part() { case "$PARTS" in *" $1 "*) return 0;; esac; return 1; }
J=$R/startup.jsonl; : > $J
T=$R/table.txt; : > $T
{ nvidia-smi --query-gpu=name,driver_version,memory.total,persistence_mode --format=csv,noheader
  nproc; df -T /tmp | tail -1; } > $R/machine.txt 2>&1
W=/tmp/sd-work; rm -rf $W; mkdir -p $W; cd $W
now() { date +%s.%N; }
since() { python3 -c "print(round($(now) - $1, 3))"; }
source "$SRC/bench/device-lib.sh"
have() { [ -x "$1/cuplas" ]; }

if part test; then
    ( time $NEW/test_gpu ) > $R/test_gpu.log 2>&1
    echo "test_gpu rc=$? $(grep -E '^\[  (PASSED|FAILED) \]' $R/test_gpu.log | tr '\n' ' ')" | tee -a $T
    if have $OLD; then
        COMPARE_IGNORE_STORAGE=2 COMPARE_NEW_PRE="sort.improvement_break=1e-3 sort.max_passes=2" \
            PATH=$NEW:$PATH bash $SRC/scripts/compare-outputs.sh $OLD/cuplas \
            $NEW/cuplas --backend gpu --quick > $R/compare-gpu.txt 2>&1
        echo "compare-outputs quick (old vs new, gpu) rc=$? $(tail -1 $R/compare-gpu.txt)" | tee -a $T
    fi
fi

if part one; then
    $NEW/cuplas gen --kind colors --size 1024x1024 c1024.h5 > /dev/null
    # new02: the new build with the old (0.2.0) default sort parameters, the
    # same sort work as old: 0.3.0's default sorts ~4x longer
    for b in old new new02; do bin=$([ $b = old ] && echo $OLD || echo $NEW); have $bin || continue
        set02=(); [ $b = new02 ] && set02=(--set sort.improvement_break=1e-3 --set sort.max_passes=2)
        $bin/cuplas sort c1024.h5 w.h5 --force "${set02[@]}" > /dev/null 2>&1   # page cache, driver files
        for k in 1 2 3 4 5; do
            t0=$(now); $bin/cuplas sort c1024.h5 s-$b.h5 --force --log-format json "${set02[@]}" > one-$b-$k.log 2>&1
            echo "{\"part\":\"one\",\"build\":\"$b\",\"run\":$k,\"process_s\":$(since $t0),\"job\":$(ev one-$b-$k.log job_done)}" >> $J
        done
    done
    # the new build's own account of the process (a debug event)
    t0=$(now); $NEW/cuplas sort c1024.h5 s-new.h5 --force --log-format json \
        --set logging.level=debug > one-new-timing.log 2>&1
    echo "{\"part\":\"one_timing\",\"process_s\":$(since $t0),\"timing\":$(ev one-new-timing.log run_timing)}" >> $J
    if have $OLD; then cmp -s s-old.h5 s-new02.h5; echo "{\"part\":\"one_bytes\",\"cmp_rc\":$?}" >> $J; fi
fi

if part big; then
    for n in $BIG; do
        $NEW/cuplas gen --kind normal --size ${n}x$n --channels 16 --deflate 0 n$n.h5 > /dev/null
        cat n$n.h5 > /dev/null
        for b in old new; do bin=$([ $b = new ] && echo $NEW || echo $OLD); have $bin || continue
            for k in 1 2; do
                rm -f s$n-$b.h5; sync
                t0=$(now); $bin/cuplas sort n$n.h5 s$n-$b.h5 --force --log-format json \
                    --set logging.level=debug > big-$n-$b-$k.log 2>&1
                echo "{\"part\":\"big\",\"n\":$n,\"build\":\"$b\",\"run\":$k,\"process_s\":$(since $t0),\"job\":$(ev big-$n-$b-$k.log job_done),\"timing\":$(ev big-$n-$b-$k.log run_timing)}" >> $J
            done
        done
        # (no byte comparison: 0.3.0's default sort differs from 0.2.0's;
        # compare-outputs.sh in the test part checks the bytes)
        rm -f s$n-old.h5
    done
fi

if part progress; then
    n=$(echo $BIG | awk '{print $NF}')
    [ -f n$n.h5 ] || $NEW/cuplas gen --kind normal --size ${n}x$n --channels 16 --deflate 0 n$n.h5 > /dev/null
    if command -v script > /dev/null; then
        script -qfec "$NEW/cuplas sort n$n.h5 p.h5 --force" progress.tty > /dev/null 2>&1
        shown=$(tr '\r' '\n' < progress.tty | grep -oE 'level [0-9]+/[0-9]+' | sort -u | wc -l)
        echo "{\"part\":\"progress\",\"n\":$n,\"distinct_levels_shown\":$shown}" >> $J
    else
        echo "{\"part\":\"progress\",\"n\":$n,\"error\":\"no script(1)\"}" >> $J
    fi
fi

if part cpu; then
    $NEW/cuplas gen --kind normal --size 2048x2048 --channels 16 --deflate 0 n2048.h5 > /dev/null
    for k in 1 2; do for b in old new; do bin=$([ $b = new ] && echo $NEW || echo $OLD); have $bin || continue
        t0=$(now); $bin/cuplas sort n2048.h5 c-$b.h5 --force --backend cpu --log-format json \
            --set sort.start_radius=2 --set sort.radius_decay=0.1 --set sort.min_configs=1 \
            --set sort.max_configs=1 --set sort.max_passes=1 > cpu-$b-$k.log 2>&1
        echo "{\"part\":\"cpu\",\"build\":\"$b\",\"run\":$k,\"process_s\":$(since $t0),\"job\":$(ev cpu-$b-$k.log job_done)}" >> $J
    done; done
fi

if part pipe; then
    # collections A and B, default config (lanes by grid size, deflate 1, fsync)
    ( cd $SRC && OUT=$R/pipe PIPE_BIN=$NEW PIPE_QUICK=1 PIPE_PURE=1 PIPE_DEFLATE=1 PIPE_FSYNC=true \
        PIPE_LANES_A=0 PIPE_LANES_B=0 bash scripts/pipeline-bench.sh > $R/pipe.txt 2>&1 )
    sed 's/^{/{"part":"pipe",/' $R/pipe/pipeline.jsonl >> $J 2>/dev/null
fi

python3 - $J <<'PY' >> $T
import json, sys, statistics
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith('{')]
one = {}
for d in rows:
    if d["part"] == "one":
        one.setdefault(d["build"], []).append(d["process_s"])
for b, v in one.items():
    print("cuplas sort 1024^2x3, whole process, %s: median %.3f s of %s" % (b, statistics.median(v), v))
for d in rows:
    if d["part"] == "one_timing":
        t = d["timing"]
        print("  new, where it goes: process %.3f s; start-up %.3f (plan %.3f; made ahead: driver"
              " %.3f, driver + contexts %.3f), first sort waited %.3f, run %.3f, teardown %.3f" % (
              d["process_s"], t.get("startup_s", -1), t.get("plan_s", -1),
              t.get("driver_init_s", -1), t.get("device_init_s", -1),
              t.get("first_sort_wait_s", -1), t.get("run_s", -1), t.get("teardown_s", -1)))
    if d["part"] == "one_bytes":
        print("  old vs new02 output: cmp rc %d (1: only wall_seconds/device/version may differ)" % d["cmp_rc"])
print("%-5s %-4s %-3s %8s %6s %6s %6s %6s %6s %6s %6s %6s %7s %6s" % ("grid", "bld", "run",
      "process", "read", "prep", "sort", "gpu", "write", "encode", "h5", "start", "tear", "x sort"))
for d in rows:
    if d["part"] == "big":
        j, t = d["job"], d.get("timing", {})
        gpu = j.get("gpu_sort_ms", 0) / 1e3
        print("%-5d %-4s %-3d %8.2f %6.2f %6.2f %6.2f %6.2f %6.2f %6.2f %6.2f %6.2f %7.2f %6.2f" % (
            d["n"], d["build"], d["run"], d["process_s"], j.get("read_s", -1), j.get("prep_s", -1),
            j.get("sort_s", -1), gpu, j.get("write_s", -1), j.get("encode_s", -1), j.get("h5_s", -1),
            t.get("startup_s", -1), t.get("teardown_s", -1),
            d["process_s"] / j["sort_s"] if j.get("sort_s") else -1))
    if d["part"] == "big_bytes":
        print("  %d^2x16 old vs new output: %d bytes differ (8 = the wall_seconds double)" % (d["n"], d["bytes_differing"]))
    if d["part"] == "cpu":
        j = d["job"]
        print("cpu backend 2048^2x16 (one level) %s run %d: process %.2f, sort %.2f, write %.2f"
              " (encode %.2f, h5 %.2f)" % (d["build"], d["run"], d["process_s"], j.get("sort_s", -1),
              j.get("write_s", -1), j.get("encode_s", -1), j.get("h5_s", -1)))
    if d["part"] == "progress":
        print("progress line inside one %s^2x16 GPU sort: %s distinct levels shown" % (d["n"], d.get("distinct_levels_shown", d.get("error"))))
    if d["part"] == "pipe":
        if "run" in d:
            print("pipe %-6s lanes %-2s whole %s grids/s, steady %s (rc %s)" % (d["run"], d["lanes"], d["grids_per_s"], d["grids_per_s_steady"], d["rc"]))
        elif d.get("mode") == "pure_sort":
            print("pipe pure sort %-24s lanes %d: %.1f grids/s" % (d["case"], d["lanes"], d["grids_per_s"]))
PY
tar czf $R/sd-logs.tgz -C $W $(cd $W && ls *.log *.tty 2>/dev/null) 2>/dev/null
cp $J $R/sd-logs.tgz $R/machine.txt $T $FINAL/ 2>/dev/null
cat $T
