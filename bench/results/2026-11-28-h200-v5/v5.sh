# v5: the twenty-second session's head (sort code unchanged since 0.7.0; this session: the
# compressed PLY reader, config choices as data, error texts, check's manifest forecast):
# the whole test_gpu, the default preset at colors_1024 (median of 5 after a warm-up), both
# captures through configs/sog.yaml on the GPU with output.ply and again on the CPU backend
# (16 threads), index and sorted compared byte for byte (cmp_outputs), a rerun that must
# skip, the bytes (WebP method 6), and memcheck on the quick test_gpu.
[ -d .dev/bin ] || (cd .dev && tar xJf bin.tar.xz)
source bench/device-lib.sh; dev_setup v5
( time timeout 330 $B/test_gpu ) > $W/test_gpu.txt 2>&1; echo "test_gpu rc=$?" | tee $OUT/test_gpu.txt
grep -E "PASSED|FAILED|^real" $W/test_gpu.txt | tee -a $OUT/test_gpu.txt
$B/bench_sort --runs 5 .dev/peer-inputs.h5:/colors_1024 2>/dev/null | sed 's/^{/{"label":"default",/' >> $J
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
  grep -h 'done\b.*gpu' $W/$s.log | head -1 | cut -c1-150 | tee -a $OUT/rerun.txt
  OMP_NUM_THREADS=16 $B/cuplas eval "$f" --scheme sog --codecs png,webp --webp-method 6 --json > $W/$s.eval.json
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
    if d['label']=='scene': print('scene    %-28s png %.4f webp m6 %.4f  process %.2f s (with PLY)' % (d['case'], d['png'], d['webp'], d['process_s']))
    else: print('%-8s %-28s %9.1f ms AND %.4f passes %d' % (d['label'], d['case'][-28:], d['device_ms'], d['and_after'], d['passes']))"
cat $OUT/parity.txt
