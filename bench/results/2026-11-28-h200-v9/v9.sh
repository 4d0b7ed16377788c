# v9: the twenty-fourth session's head: the whole test_gpu, and both captures through
# configs/sog.yaml on the GPU with its new eval block turned on (scheme sog, PNG and WebP
# method 6, sorted against Morton; the step runs on the host's 16 cores while the lane waits):
# the step's ratios (README "Scenes": plant 0.9273 / 0.9485, tarot 0.9379 / 0.9622) and the
# process time with and without the step.
[ -d .dev/bin ] || (cd .dev && tar xJf bin.tar.xz)
source bench/device-lib.sh; dev_setup v9
nproc | tee $OUT/nproc.txt
( time timeout 400 $B/test_gpu ) > $W/test_gpu.txt 2>&1; echo "test_gpu rc=$?" | tee $OUT/test_gpu.txt
grep -E "PASSED|FAILED|^real" $W/test_gpu.txt | tee -a $OUT/test_gpu.txt
for s in plant academic_tarot_cards; do
  for e in false true; do
    t0=$(date +%s.%N)
    $B/cuplas run configs/sog.yaml --set "inputs=[{files: .dev/scenes/$s.splat}]" --set output.dir=$W/$s-$e --set output.ply=false --set eval.enabled=$e --log-format text > $W/$s-$e.log 2>&1 || { echo "$s $e run failed"; tail -3 $W/$s-$e.log; }
    t1=$(date +%s.%N)
    grep "cuplas: done" $W/$s-$e.log | sed 's/.*-> //' | tee -a $OUT/runs.txt
    python3 - "$s" "$e" "$W/$s-$e/cuplas-manifest.json" "$t0" "$t1" >> $J <<'PY'
import json, sys
s, e, p, t0, t1 = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]), float(sys.argv[5])
d = json.load(open(p))['datasets'][0]
ev = d.get('eval') or {}
print(json.dumps({'scene': s, 'eval': e, 'process_s': round(t1 - t0, 3), 'sort_s': d.get('sort_s'),
                  'backend': d.get('backend'), 'scheme': ev.get('scheme'), 'codec_opts': ev.get('codec_opts'),
                  'ratios': ev.get('ratios'), 'eval_s': ev.get('seconds'), 'bytes': ev.get('bytes')}))
PY
  done
done
echo "== table"
python3 - "$J" <<'PY'
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    m = (r['ratios'] or {}).get('morton', {})
    print('%-22s eval %-5s %-4s process %6.2f s  eval %s s  scheme %s  png %s  webp %s' % (r['scene'], r['eval'], r['backend'], r['process_s'],
          r['eval_s'] and round(r['eval_s'], 2), r['scheme'], m.get('png') and round(m['png'], 4), m.get('webp') and round(m['webp'], 4)))
PY
