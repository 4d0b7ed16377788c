# v26: the SOG step without a grid of doubles for the SH coefficients (332a1e7): the 6.14M-splat
# PlayCanvas run's peak RSS, time and bytes (v24/v25: 8.14 GiB, 86,467,217 bytes), export-sog of
# its result on the GPU (peak RSS, the same files as the run's folder), then test_gpu quick.
[ -d .dev/bin ] || (cd .dev && tar xJf bin.tar.xz)
source bench/device-lib.sh; dev_setup v26
export OMP_NUM_THREADS=16
$B/scene_tile .dev/scenes/plant.splat $W/p54.ply 54 > /dev/null
python3 - "$B/cuplas" "$W" "$OUT" <<'PY' | tee -a $OUT/runs.txt
import json, resource, subprocess, sys, time
b, w, out = sys.argv[1:4]
def peak(): return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1048576.0
t0 = time.time()
rc = subprocess.call([b, "run", "configs/playcanvas.yaml", "--set", "inputs=[{files: %s/p54.ply}]" % w,
                      "--set", "output.dir=%s/r" % w, "--set", "logging.level=debug", "--log-format", "json"],
                     stdout=open(out + "/run.log", "w"), stderr=subprocess.STDOUT)
print("run 6.14M rc=%d wall %.2f s peak RSS %.2f GiB" % (rc, time.time() - t0, peak()))
for l in open(out + "/run.log"):
    if l.startswith("{"):
        d = json.loads(l)
        if d.get("event") in ("sog_timing", "job_done"):
            print(d["event"], {k: (round(v, 2) if isinstance(v, float) else v) for k, v in d.items()
                               if k.endswith("_s") or k == "sog_bytes"})
PY
rm -f $W/p54.ply
python3 - "$B/cuplas" "$W" "$OUT" <<'PY' | tee -a $OUT/runs.txt
import resource, subprocess, sys, time
b, w, out = sys.argv[1:4]
t0 = time.time()
rc = subprocess.call([b, "export-sog", w + "/r/p54.vertex.h5", w + "/es", "--webp-method", "2"],
                     stdout=open(out + "/export.txt", "w"), stderr=subprocess.STDOUT)
print("export-sog 6.14M rc=%d wall %.2f s peak RSS %.2f GiB" % (rc, time.time() - t0,
      resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1048576.0))
PY
cat $OUT/export.txt | tee -a $OUT/runs.txt
diff -r $W/r/p54.vertex.sog $W/es > /dev/null && echo "export-sog files == the run's SOG folder" | tee -a $OUT/runs.txt || { ls $W/r; echo "FILES DIFFER" | tee -a $OUT/runs.txt; }
CUPLAS_TEST_QUICK=1 timeout 240 $B/test_gpu > $OUT/test_gpu.txt 2>&1; echo "test_gpu quick rc=$?: $(grep -E 'PASSED|FAILED' $OUT/test_gpu.txt | tr '\n' ' ')" | tee -a $OUT/runs.txt
echo "== table"; cat $OUT/runs.txt
