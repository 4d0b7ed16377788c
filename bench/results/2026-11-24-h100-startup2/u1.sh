#!/bin/bash
# u1: a process's fixed CUDA costs (bench/startup_probe) and cuplas's one-file timeline
set -u
cd .dev && tar xJf libs.tar.xz && cd ..
export LD_LIBRARY_PATH=$PWD/.dev/lib
B=$PWD/.dev/bin; J=$OUT/u1.jsonl; : > $J
nvidia-smi --query-gpu=name,driver_version,persistence_mode --format=csv,noheader > $OUT/machine.txt; nproc >> $OUT/machine.txt
probe() { local t0=$EPOCHREALTIME; local l; l=$($B/startup_probe "$@"); local t1=$EPOCHREALTIME
  echo "{\"t0\":$t0,\"t1\":$t1,\"p\":$l}" >> $J; }
$B/startup_probe ctx > /dev/null
for r in 1 2 3 4 5; do
  probe none; probe count; probe ctx
  for e in exit free reset; do probe lanes 1 64 16 $e; probe lanes 16 256 32 $e; probe lanes 4 2048 600 $e; done
done
W=/tmp/u1w; mkdir -p $W
$B/cuplas gen --kind colors --size 1024x1024 $W/c.h5 > /dev/null
$B/cuplas sort $W/c.h5 $W/s.h5 --force > /dev/null 2>&1
for m in default EAGER; do for r in 1 2 3 4 5; do
  t0=$EPOCHREALTIME
  if [ $m = EAGER ]; then CUDA_MODULE_LOADING=EAGER $B/cuplas sort $W/c.h5 $W/s.h5 --force --log-format json --set logging.level=debug > $W/l.txt 2>&1
  else $B/cuplas sort $W/c.h5 $W/s.h5 --force --log-format json --set logging.level=debug > $W/l.txt 2>&1; fi
  t1=$EPOCHREALTIME
  python3 - "$t0" "$t1" "$m" $W/l.txt >> $J <<'PY'
import json,sys
t0,t1=float(sys.argv[1]),float(sys.argv[2])
ev=[json.loads(l) for l in open(sys.argv[4]) if l.startswith('{')]
print(json.dumps({"one":sys.argv[3],"process_s":round(t1-t0,4),"events":[[e["event"],round(e["time"]-t0,3)] for e in ev],
  "job":[e for e in ev if e["event"]=="job_done"][0], "timing":[e for e in ev if e["event"]=="run_timing"][0]}))
PY
done; done
python3 - $J <<'PY' | tee $OUT/u1-table.txt
import json,sys,statistics as st
rows=[json.loads(l) for l in open(sys.argv[1])]
g={}
for r in rows:
  if "p" in r:
    p=r["p"]; k=(p["mode"],p["lanes"],p["dev_mb"],p["host_mb"],p["end"])
    d=g.setdefault(k,{"proc":[],"drv":[],"ctx":[],"alloc":[],"end":[],"exit":[]})
    t0=r["t0"]; d["proc"].append(r["t1"]-t0)
    if p["t_driver"]: d["drv"].append(p["t_driver"]-p["t_main"])
    if p["t_ctx"]: d["ctx"].append(p["t_ctx"]-p["t_driver"])
    if p["t_alloc"]: d["alloc"].append(p["t_alloc"]-p["t_ctx"]); d["end"].append(p["t_end1"]-p["t_end0"])
    last=max(p["t_main"],p["t_driver"],p["t_ctx"],p["t_end1"]); d["exit"].append(r["t1"]-last)
    d.setdefault("exec",[]).append(p["t_main"]-t0)
m=lambda v: "%.3f"%st.median(v) if v else "-"
print("%-34s %7s %6s %6s %6s %6s %6s %6s"%("probe (median of 5, s)","process","exec","driver","ctx","alloc","end","exit"))
for k,d in g.items(): print("%-34s %7s %6s %6s %6s %6s %6s %6s"%(" ".join(map(str,k)),m(d["proc"]),m(d["exec"]),m(d["drv"]),m(d["ctx"]),m(d["alloc"]),m(d["end"]),m(d["exit"])))
for r in rows:
  if "one" in r:
    ev=" ".join("%s@%.3f"%(a,b) for a,b in r["events"] if a in("run_start","job_start","job_done","run_timing"))
    print("one %-7s process %.3f sort %.3f write %.3f | %s | exit %.3f"%(r["one"],r["process_s"],r["job"]["sort_s"],r["job"]["write_s"],ev,r["process_s"]-r["events"][-1][1]))
PY
