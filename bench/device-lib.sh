# device-lib.sh - helpers the device scripts share (sourced, not run).
#
# A script carried to the GPU machine with `.dev` (scripts/device-bundle.sh,
# then `strip .dev/bin/*` and the libraries packed as .dev/libs.tar.xz)
# starts with:
#   source bench/device-lib.sh; dev_setup
# and then has B (the carried binaries), J ($OUT/NAME.jsonl, empty) and W
# (a scratch folder under /tmp, empty).

# unpack the carried libraries, point the loader at them, name the GPU:
# dev_setup [NAME]  (NAME: the JSON-lines file's stem, default "runs")
dev_setup() {
    local n=${1:-runs}
    [ -f .dev/libs.tar.xz ] && [ ! -d .dev/lib ] && (cd .dev && tar xJf libs.tar.xz)
    export LD_LIBRARY_PATH=$PWD/.dev/lib
    B=$PWD/.dev/bin
    OUT=${OUT:-$PWD/out}; mkdir -p "$OUT"
    J=$OUT/$n.jsonl; : > "$J"
    W=/tmp/dev-work-$n; rm -rf "$W"; mkdir -p "$W"
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"
}

# one event's numeric fields from a JSON log, as JSON: ev LOG EVENT
ev() { python3 -c "import json,sys
for l in open(sys.argv[1]):
    if l.startswith('{'):
        d = json.loads(l)
        if d.get('event') == sys.argv[2]:
            print(json.dumps({k: v for k, v in d.items() if isinstance(v, (int, float))})); break
else: print('{}')" "$1" "$2"; }

# one process's line into $J: its wall time, how many jobs it finished and
# the timings of its last job_done and its run_timing (prefixed t_):
# rec LABEL LOG T0 T1   (T0, T1 from `date +%s.%N`)
rec() { python3 - "$@" >> "$J" <<'PY'
import json, sys
label, log, t0, t1 = sys.argv[1:5]
ev, done = {}, 0
for l in open(log):
    if l.startswith('{'):
        d = json.loads(l); ev[d.get('event')] = d; done += d.get('event') == 'job_done'
o = {"label": label, "process_s": round(float(t1) - float(t0), 4), "jobs_done": done}
num = lambda d, p: {p + k: round(v, 4) for k, v in d.items()
                    if isinstance(v, (int, float)) and not isinstance(v, bool) and k.endswith(('_s', '_ms'))}
o.update(num(ev.get('job_done', {}), ''))
o.update(num(ev.get('run_timing', {}), 't_'))
print(json.dumps(o))
PY
}
