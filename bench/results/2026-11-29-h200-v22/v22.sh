# v22: configs/playcanvas.yaml (sog step at WebP method 2) at 1.02M and 6.14M splats after the
# scheme's cell loops and the gather went onto the pool (v19: 10.69 / 50.61 s of sog_s), the
# same bytes; export-sog of the 6.14M result for its breakdown line (v21: 6.26 s quantising).
[ -d .dev/bin ] || (cd .dev && tar xJf bin.tar.xz)
source bench/device-lib.sh; dev_setup v22
export OMP_NUM_THREADS=16
for k in 9 54; do
  $B/scene_tile .dev/scenes/plant.splat $W/p$k.ply $k > /dev/null
  rm -rf $W/r
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
st = {k: round(v, 2) for k, v in d.items() if isinstance(v, (int, float)) and k in ('sort_s', 'sog_s', 'write_s')}
print(json.dumps({"label": log.split('/')[-1], "rc": rc, "wall_s": round(wall, 2), "peak_rss_gib": round(rss, 2), "sog_bytes": d.get('sog_bytes'), **st}))
PY
  [ $k = 54 ] && $B/cuplas export-sog $W/r/p$k.vertex.h5 $W/ex --webp-method 2 | tee -a $OUT/runs.txt
  rm -f $W/p$k.ply
done
echo "== summary"; cat $OUT/runs.txt
