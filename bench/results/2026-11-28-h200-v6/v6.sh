# v6: a SuperSplat compressed PLY on the GPU (the twenty-second session's reader): tarot,
# encoded by bench/results/2026-11-28-cpu-compressed/splat2cply.py, through configs/sog.yaml on
# the GPU with output.ply and on the CPU backend (16 threads), index/sorted/PLY compared byte
# for byte, export-ply against the sorted PLY, a rerun that must skip, read seconds against
# the .splat's, and the SOG bytes (WebP method 6).
[ -d .dev/bin ] || (cd .dev && tar xJf bin.tar.xz)
source bench/device-lib.sh; dev_setup v6
for s in tarot.compressed.ply academic_tarot_cards.splat; do
  n=${s%%.*}
  run() { $B/cuplas run configs/sog.yaml --set "inputs=[{files: .dev/scenes/$s}]" --set output.ply=true "$@"; }
  run --set output.dir=$W/$n --log-format json > $W/$n.log 2>&1 || { echo "$s gpu run failed"; tail -3 $W/$n.log; }
  echo "{\"label\":\"done\",\"case\":\"$s\",\"ev\":$(ev $W/$n.log job_done)}" >> $J
  run --set output.dir=$W/$n --log-format text 2>&1 | grep summary | sed "s|^|$s |" | tee -a $OUT/parity.txt
  OMP_NUM_THREADS=16 run --set output.dir=$W/cpu-$n --set backend.device=cpu --log-format text > $W/cpu-$n.log 2>&1 || { echo "$s cpu run failed"; tail -3 $W/cpu-$n.log; }
  echo "$s gpu vs cpu: $($B/cmp_outputs $W/$n $W/cpu-$n | tail -1)" | tee -a $OUT/parity.txt
  cmp $W/$n/*.ply $W/cpu-$n/*.ply && echo "$s gpu ply = cpu ply" | tee -a $OUT/parity.txt
  f=$(ls $W/$n/*.h5)
  $B/cuplas export-ply $f .dev/scenes/$s $W/$n.x.ply && cmp $W/$n/*.ply $W/$n.x.ply && echo "$s ply = export-ply" | tee -a $OUT/parity.txt
done
f=$(ls $W/tarot/*.h5)
OMP_NUM_THREADS=16 $B/cuplas eval "$f" --scheme sog --codecs png,webp --webp-method 6 > $OUT/eval-compressed-m6.txt 2>&1
echo "== table"
python3 -c "
import json
for l in open('$J'):
    d=json.loads(l); e=d['ev']
    print('%-28s read %.3f s  sort %.3f s  gpu sort %.1f ms  AND %.4f' % (d['case'], e.get('read_s', -1), e.get('sort_s', -1), e.get('gpu_sort_ms', -1), e.get('and_after', -1)))"
grep -E "^sorted|^morton" $OUT/eval-compressed-m6.txt
cat $OUT/parity.txt
