#!/bin/bash
# seeds of sog.yaml on both captures: PNG + WebP m6, sorted / Morton
for sc in plant academic_tarot_cards; do for s in 1337 1 2 3 4; do
  d=/tmp/seeds/${sc}_$s; rm -rf $d
  OMP_NUM_THREADS=2 /work/main/cuplas run /work/main/configs/sog.yaml --set "inputs=[{files: /work/shared/data/scenes/$sc.splat}]" --set output.dir=$d --set backend.device=cpu --set output.ply=false --set sort.seed=$s > $d.log 2>&1 || { echo fail $sc $s; continue; }
  OMP_NUM_THREADS=2 /work/main/cuplas eval $(ls $d/*.h5) --scheme sog --codecs png,webp --orders sorted,morton --json > $d.json
  python3 -c "
import json; d=json.load(open('$d.json')); b=d['bytes']
print('$sc', $s, 'png %.4f webp %.4f' % (b['sorted']['png']/b['morton']['png'], b['sorted']['webp']/b['morton']['webp']), b['morton'])" 
done; done
