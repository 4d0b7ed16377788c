# v19: configs/playcanvas.yaml as shipped (sog step at WebP method 2, the sorted PLY beside the
# result) at production scene sizes on an H200: the plant with noise SH bands laid 9, 27 and 54
# times (bench/scene_tile: 1.02M, 3.07M, 6.14M splats, 62 float properties). Per process: wall
# time, peak RSS (getrusage of the child), the job's stage times and the SOG's bytes.
[ -d .dev/bin ] || (cd .dev && tar xJf bin.tar.xz)
source bench/device-lib.sh; dev_setup v19
export OMP_NUM_THREADS=16
nvidia-smi --query-gpu=memory.total,persistence_mode --format=csv,noheader | tee -a $OUT/gpu.txt
for k in 9 27 54; do
  t0=$(date +%s.%N); $B/scene_tile .dev/scenes/plant.splat $W/p$k.ply $k > /dev/null; t1=$(date +%s.%N)
  echo "p$k: made in $(python3 -c "print(round($t1-$t0,1))") s, $(stat -c %s $W/p$k.ply) bytes" | tee -a $OUT/runs.txt
  rm -rf $W/r; t0=$(date +%s.%N)
  python3 - $OUT/run-p$k.log $B/cuplas run configs/playcanvas.yaml --set "inputs=[{files: $W/p$k.ply}]" --set output.dir=$W/r --log-format json <<'PY' | tee -a $OUT/runs.txt
import json, resource, subprocess, sys, time
log, cmd = sys.argv[1], sys.argv[2:]
t = time.time()
with open(log, 'w') as f:
    try: rc = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, timeout=170).returncode
    except subprocess.TimeoutExpired: rc = 'timeout'
wall = time.time() - t
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1048576
ev = [json.loads(l) for l in open(log) if l.startswith('{')]
d = next((e for e in ev if e.get('event') == 'job_done'), {})
fails = [e.get('msg', e.get('error')) for e in ev if e.get('event') in ('job_failed', 'error')]
st = {k: round(v, 2) for k, v in d.items() if isinstance(v, (int, float)) and k.endswith('_s')}
print(json.dumps({"label": log.split('/')[-1], "rc": rc, "wall_s": round(wall, 2), "peak_rss_gib": round(rss, 2),
                  "N": d.get('N', d.get('items')), "sog_bytes": d.get('sog_bytes'), **st, "fails": fails}))
PY
  du -sb $W/r/*.sog | tee -a $OUT/runs.txt
  rm -f $W/p$k.ply
done
echo "== summary"; cat $OUT/runs.txt
