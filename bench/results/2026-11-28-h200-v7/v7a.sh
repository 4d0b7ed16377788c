# v7a: the twenty-third session's head (no sort code changed since 0.7.0; this session:
# eval's per-image encodes and --orders, .splat / compressed PLY decoded on the read's
# threads, link chains named, manifest reading split out): the whole test_gpu, memcheck on
# the quick test_gpu, and both captures through configs/sog.yaml on the GPU and on the CPU
# backend (16 threads): index, sorted and the sorted PLY compared byte for byte, a rerun
# that must skip, and the SOG bytes against Morton (eval --orders sorted,morton, WebP m6).
[ -d .dev/bin ] || (cd .dev && tar xJf bin.tar.xz)
source bench/device-lib.sh; dev_setup v7a
( time timeout 330 $B/test_gpu ) > $W/test_gpu.txt 2>&1; echo "test_gpu rc=$?" | tee $OUT/test_gpu.txt
grep -E "PASSED|FAILED|^real" $W/test_gpu.txt | tee -a $OUT/test_gpu.txt
for s in plant academic_tarot_cards; do
  run() { $B/cuplas run configs/sog.yaml --set "inputs=[{files: .dev/scenes/$s.splat}]" --set output.ply=true --log-format text "$@"; }
  t0=$(date +%s.%N)
  run --set output.dir=$W/$s > $W/$s.log 2>&1 || { echo "$s run failed"; tail -3 $W/$s.log; }
  t1=$(date +%s.%N)
  run --set output.dir=$W/$s 2>&1 | grep summary | tee -a $OUT/rerun.txt
  OMP_NUM_THREADS=16 run --set output.dir=$W/cpu-$s --set backend.device=cpu > $W/cpu-$s.log 2>&1 || { echo "$s cpu run failed"; tail -3 $W/cpu-$s.log; }
  echo "$s gpu vs cpu: $($B/cmp_outputs $W/$s $W/cpu-$s | tail -1)" | tee -a $OUT/parity.txt
  f=$(ls $W/$s/*.h5)
  cmp $W/$s/*.ply $W/cpu-$s/*.ply && echo "$s gpu ply = cpu ply" | tee -a $OUT/parity.txt
  $B/cuplas export-ply $f .dev/scenes/$s.splat $W/$s.x.ply && cmp $W/$s/*.ply $W/$s.x.ply && echo "$s ply = export-ply" | tee -a $OUT/rerun.txt
  OMP_NUM_THREADS=16 $B/cuplas eval "$f" --scheme sog --codecs png,webp --webp-method 6 --orders sorted,morton --json > $W/$s.eval.json
  cp $f $OUT/$s.h5 2>/dev/null
  python3 - "$s" "$W/$s.eval.json" "$t0" "$t1" >> $J <<'PY'
import json, sys
s, p, t0, t1 = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
ib = json.load(open(p))["image_bytes"]
o = {"label": "scene", "case": s, "process_s": round(t1 - t0, 3), "image_bytes": ib}
for c in ib["sorted"]:
    keep = [k for k in ib["sorted"][c] if not k.startswith("extra")]
    o[c] = round(sum(ib["sorted"][c][k] for k in keep) / sum(ib["morton"][c][k] for k in keep), 4)
print(json.dumps(o))
PY
done
echo "== compute-sanitizer memcheck, test_gpu quick"
CUPLAS_TEST_QUICK=1 timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 $B/test_gpu > $W/san.txt 2>&1; echo "memcheck rc=$?" | tee $OUT/sanitizer.txt
grep -E "ERROR SUMMARY|PASSED|FAILED" $W/san.txt | tee -a $OUT/sanitizer.txt
echo "== table"
python3 -c "
import json
for l in open('$J'):
    d=json.loads(l)
    print('scene    %-28s png %.4f webp m6 %.4f  process %.2f s (with PLY)' % (d['case'], d['png'], d['webp'], d['process_s']))"
cat $OUT/parity.txt $OUT/test_gpu.txt
