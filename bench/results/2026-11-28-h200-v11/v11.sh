# v11: a race between GPU lanes on the fused blur's shared-memory attribute. Binaries built
# with and without the fix (blur_gpu.cu: the attribute set to LINE_SMEM_MAX, not to this
# launch's size): test_gpu's new test_gpu_lanes_mixed_shapes (4 lanes, 4 shapes, 13
# channels) 3 times each; both captures in one run of configs/sog.yaml (2 lanes) 5 times
# each; then the whole test_gpu of the fixed build.
[ -d .dev/bin ] || (cd .dev && tar xJf bin.tar.xz)
source bench/device-lib.sh; dev_setup v11
for b in test_gpu_nofix test_gpu; do
  for k in 1 2 3; do
    CUPLAS_TEST_FILTER=test_gpu_lanes_mixed_shapes $B/$b > $W/$b.$k.txt 2>&1; rc=$?
    echo "{\"case\":\"mixed_shapes\",\"bin\":\"$b\",\"run\":$k,\"rc\":$rc,\"line\":\"$(grep -E 'sorts differ' $W/$b.$k.txt | tr -d '"')\",\"first_error\":\"$(grep -m1 -E 'round' $W/$b.$k.txt | tr -d '"')\"}" >> $J
  done
done
for b in cuplas-nofix cuplas; do
  for k in 1 2 3 4 5; do
    $B/$b run configs/sog.yaml --set "inputs=[{files: .dev/scenes/*.splat}]" --set output.dir=$W/$b-$k --set output.ply=false --log-format text > $W/$b-$k.log 2>&1; rc=$?
    echo "{\"case\":\"two_scenes\",\"bin\":\"$b\",\"run\":$k,\"rc\":$rc,\"summary\":\"$(grep -m1 'summary:' $W/$b-$k.log | tr -d '"')\",\"failed\":\"$(grep -m1 'failed:' $W/$b-$k.log | tr -d '"')\"}" >> $J
  done
done
( time timeout 400 $B/test_gpu ) > $W/test_gpu.txt 2>&1; echo "test_gpu rc=$?" | tee $OUT/test_gpu.txt
grep -E "PASSED|FAILED|^real|sorts differ" $W/test_gpu.txt | tee -a $OUT/test_gpu.txt
echo "== table"
python3 - "$J" <<'PY'
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    print('%-12s %-15s run %d rc %d  %s %s' % (r['case'], r['bin'], r['run'], r['rc'], r.get('line') or r.get('summary'), (r.get('first_error') or r.get('failed') or '')[:110]))
PY
