# v20: the SOG step's palette after three changes (the centroid update a centroid a thread; the
# GPU assignment reading its tile four coordinates a load; the five attribute images encoded on
# a helper thread while the GPU fits): test_gpu (GPU folder = CPU folder among its tests),
# bench_palette against v14's figures, compute-sanitizer on the kernel and on export-sog, and
# configs/playcanvas.yaml at 1.02M / 3.07M / 6.14M splats against v19.
[ -d .dev/bin ] || (cd .dev && tar xJf bin.tar.xz)
source bench/device-lib.sh; dev_setup v20
export OMP_NUM_THREADS=16
$B/test_gpu > $OUT/test_gpu.txt 2>&1; echo "test_gpu rc=$? $(grep -c '\[       OK \]' $OUT/test_gpu.txt) ok, $(grep -c 'FAILED  \]' $OUT/test_gpu.txt) failed lines" | tee -a $OUT/runs.txt
for cfg in "114865 45 65536 10 0 --cpu-check" "1000000 45 65536 10 0" "3000000 45 65536 10 0"; do
  $B/bench_palette $cfg | tee -a $OUT/bench.jsonl
done
compute-sanitizer --tool memcheck $B/bench_palette 3000 45 500 2 0 > $OUT/memcheck.txt 2>&1; echo "memcheck bench_palette: $(tail -1 $OUT/memcheck.txt)" | tee -a $OUT/runs.txt
compute-sanitizer --tool racecheck $B/bench_palette 3000 45 500 2 0 > $OUT/racecheck.txt 2>&1; echo "racecheck bench_palette: $(tail -1 $OUT/racecheck.txt)" | tee -a $OUT/runs.txt
$B/scene_tile .dev/scenes/plant.splat $W/p1.ply 1 > /dev/null
$B/cuplas run configs/playcanvas.yaml --set "inputs=[{files: $W/p1.ply}]" --set output.dir=$W/r1 --set output.ply=false --set sog.enabled=false --log-format text > /dev/null 2>&1
compute-sanitizer --tool memcheck $B/cuplas export-sog $W/r1/p1.vertex.h5 $W/ms --webp-method 0 --backend gpu --sh-palette 1024 --sh-iterations 2 > $OUT/memcheck-export.txt 2>&1; echo "memcheck export-sog: $(tail -1 $OUT/memcheck-export.txt)" | tee -a $OUT/runs.txt
$B/cuplas export-sog $W/r1/p1.vertex.h5 $W/eg --webp-method 2 --backend gpu > /dev/null 2>&1
$B/cuplas export-sog $W/r1/p1.vertex.h5 $W/ec --webp-method 2 --backend cpu > /dev/null 2>&1
echo "p1 export-sog gpu vs cpu: $(diff -r $W/eg $W/ec > /dev/null && echo identical || echo DIFFER)" | tee -a $OUT/runs.txt
for k in 9 27 54; do
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
  rm -f $W/p$k.ply
done
echo "== summary"; cat $OUT/runs.txt; cat $OUT/bench.jsonl
