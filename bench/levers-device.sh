#!/bin/bash
# levers-device.sh - one device call: where a big grid's process time goes
# (page faults, system time, run_timing), and a sweep of sort parameters
# on the peers' colours (several seeds), generated 2048^2 colours and
# 1024^2 x 16 normals.
#
#   scripts/device-bundle.sh; cp /tmp/peers-small.h5 .dev/peer-inputs.h5
#   device run, carry [".dev"]: LV_PARTS="big one sweep" bash bench/levers-device.sh
#
# LV_VARIANTS: "label=key=value,key=value ..." (label alone: the preset);
# LV_SEEDS: seeds for colors_1024. JSON lines in $OUT/levers.jsonl, table last.
set -u
FINAL=${OUT:-$PWD}; mkdir -p $FINAL
export LD_LIBRARY_PATH=$PWD/.dev/lib
B=$PWD/.dev/bin PEERS=$PWD/.dev/peer-inputs.h5 SRC=$PWD
PARTS=" ${LV_PARTS:-big one sweep} "
part() { case "$PARTS" in *" $1 "*) return 0;; esac; return 1; }
J=$FINAL/levers.jsonl; : > $J
W=/tmp/lv-work; rm -rf $W; mkdir -p $W
{ cat /sys/kernel/mm/transparent_hugepage/enabled; nproc; df -T /tmp | tail -1; } > $FINAL/machine.txt 2>&1; cat $FINAL/machine.txt
# rusage of one command: wall, user, sys, minor/major faults, max RSS
ru() { python3 - "$@" <<'PY'
import json, resource, subprocess, sys, time
t = time.time(); p = subprocess.run(sys.argv[2:], stdout=open(sys.argv[1], "w"), stderr=subprocess.STDOUT)
w = time.time() - t; r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"rc": p.returncode, "wall_s": round(w, 3), "user_s": round(r.ru_utime, 3),
                  "sys_s": round(r.ru_stime, 3), "minflt": r.ru_minflt, "majflt": r.ru_majflt,
                  "maxrss_mb": round(r.ru_maxrss / 1024)}))
PY
}
source "$SRC/bench/device-lib.sh"

if part big; then
    for n in ${LV_BIG:-4096}; do
        $B/cuplas gen --kind normal --size ${n}x$n --channels 16 --deflate 0 $W/n$n.h5 > /dev/null
        cat $W/n$n.h5 > /dev/null
        for k in 1 2; do
            rm -f $W/s$n.h5; sync
            r=$(ru $W/big-$n-$k.log $B/cuplas sort $W/n$n.h5 $W/s$n.h5 --force --log-format json --set logging.level=debug)
            echo "{\"part\":\"big\",\"n\":$n,\"run\":$k,\"ru\":$r,\"job\":$(ev $W/big-$n-$k.log job_done),\"timing\":$(ev $W/big-$n-$k.log run_timing)}" | tee -a $J
        done
        rm -f $W/n$n.h5 $W/s$n.h5
    done
fi

if part one; then
    $B/cuplas gen --kind colors --size 1024x1024 $W/c1024.h5 > /dev/null
    $B/cuplas sort $W/c1024.h5 $W/w.h5 --force > /dev/null 2>&1
    for k in 1 2 3 4 5; do
        r=$(ru $W/one-$k.log $B/cuplas sort $W/c1024.h5 $W/s1.h5 --force --log-format json --set logging.level=debug)
        echo "{\"part\":\"one\",\"run\":$k,\"ru\":$r,\"job\":$(ev $W/one-$k.log job_done),\"timing\":$(ev $W/one-$k.log run_timing)}" | tee -a $J
    done
fi

if part sweep; then
    VARS=${LV_VARIANTS:-default}
    for v in $VARS; do
        label=${v%%=*}; sets=()
        if [ "$label" != "$v" ]; then IFS=, read -ra kv <<< "${v#*=}"; for s in "${kv[@]}"; do sets+=(--set "sort.$s"); done; fi
        for seed in ${LV_SEEDS:-1337 1 2}; do
            $B/bench_sort --runs 1 "${sets[@]}" --set sort.seed=$seed $PEERS:/colors_1024 2>/dev/null |
                sed "s/^{/{\"part\":\"sweep\",\"label\":\"$label\",\"seed\":$seed,/" >> $J
        done
        $B/bench_sort --runs 1 "${sets[@]}" ${LV_CASES:-colors:2048x2048 normal:1024x1024x16} 2>/dev/null |
            sed "s/^{/{\"part\":\"sweep\",\"label\":\"$label\",\"seed\":1337,/" >> $J
        tail -n 5 $J | python3 -c "import json,sys
for l in sys.stdin:
    d=json.loads(l); print('%-14s %-28s %5s %9.1f ms AND %.4f passes %d' % (d['label'], d['case'][-28:], d['seed'], d['device_ms'], d['and_after'], d['passes']))"
    done
fi
echo "== table"
python3 - $J <<'PY'
import json, sys, statistics
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith('{')]
for d in rows:
    if d["part"] in ("big", "one"):
        ru, j, t = d["ru"], d["job"], d["timing"]
        print("%-4s %s wall %.3f user %.2f sys %.2f minflt %d rss %d MB | read %.3f prep %.3f sort %.3f write %.3f enc %.3f | %s" % (
            d["part"], d.get("n", ""), ru["wall_s"], ru["user_s"], ru["sys_s"], ru["minflt"], ru["maxrss_mb"],
            j.get("read_s", -1), j.get("prep_s", -1), j.get("sort_s", -1), j.get("write_s", -1), j.get("encode_s", -1),
            " ".join("%s=%.3f" % (k, v) for k, v in t.items() if k.endswith("_s"))))
lab = {}
for d in rows:
    if d["part"] == "sweep":
        lab.setdefault(d["label"], []).append(d)
for l, v in lab.items():
    c1 = [d for d in v if d["case"].endswith("colors_1024")]
    o = [d for d in v if not d["case"].endswith("colors_1024")]
    print("%-14s c1024 %s (med %.4f, %.1f ms) | %s" % (l, " ".join("%.4f" % d["and_after"] for d in c1),
          statistics.median([d["and_after"] for d in c1]) if c1 else 0, statistics.median([d["device_ms"] for d in c1]) if c1 else 0,
          " ".join("%s %.4f %.0f ms" % (d["case"].split(":")[0][:6], d["and_after"], d["device_ms"]) for d in o)))
PY
