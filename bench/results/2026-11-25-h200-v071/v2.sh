# v2: the 0.7.1 head (nineteenth session; no sort code changed since 0.7.0): the whole test_gpu,
# presets' targets (bench_sort, median of 5 after a warm-up), and both captures through
# configs/sog.yaml on the GPU with cuplas eval (WebP method 6, PNG level 9).
[ -d .dev/bin ] || (cd .dev && tar xJf bin.tar.xz)   # binaries packed to fit the carry
source bench/device-lib.sh; dev_setup v2
( time $B/test_gpu ) > $W/test_gpu.txt 2>&1; echo "test_gpu rc=$?"
grep -E "^\[  (PASSED|FAILED) \]|^real" $W/test_gpu.txt | tee $OUT/test_gpu.txt
P=.dev/peer-inputs.h5:/colors_1024
$B/bench_sort --runs 5 $P colors:2048x2048 normal:1024x1024x16 2>/dev/null | sed 's/^{/{"label":"default",/' >> $J
$B/bench_sort --runs 5 --set sort.preset=fast $P 2>/dev/null | sed 's/^{/{"label":"fast",/' >> $J
$B/bench_sort --runs 5 --set sort.preset=best $P 2>/dev/null | sed 's/^{/{"label":"best",/' >> $J
for s in plant academic_tarot_cards; do
  t0=$(date +%s.%N)
  $B/cuplas run configs/sog.yaml --set "inputs=[{files: .dev/scenes/$s.splat}]" --set output.dir=$W/$s \
    --set output.ply=false > $W/$s.log 2>&1 || { echo "$s run failed"; tail -3 $W/$s.log; }
  t1=$(date +%s.%N)
  f=$(ls $W/$s/*.h5)
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
echo "== table"
python3 -c "
import json
for l in open('$J'):
    d=json.loads(l)
    if d['label']=='scene': print('scene    %-28s png %.4f webp m6 %.4f  process %.2f s' % (d['case'], d['png'], d['webp'], d['process_s']))
    else: print('%-8s %-28s %9.1f ms AND %.4f passes %d' % (d['label'], d['case'][-28:], d['device_ms'], d['and_after'], d['passes']))"
echo "== compute-sanitizer memcheck, test_gpu quick"
CUPLAS_TEST_QUICK=1 timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 $B/test_gpu > $W/san.txt 2>&1; echo "memcheck rc=$?" | tee $OUT/sanitizer.txt
grep -E "ERROR SUMMARY|^\[  (PASSED|FAILED) \]" $W/san.txt | tee -a $OUT/sanitizer.txt
