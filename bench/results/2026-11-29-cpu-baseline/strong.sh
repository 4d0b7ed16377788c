set -u
B=/work/main/cuplas
S='--set sort.polish_cells=6 --set sort.radius_decay=0.99 --set sort.max_configs=8 --set sort.max_passes=8 --set sort.improvement_break=1e-5'
for sc in plant academic_tarot_cards; do
  t0=$(date +%s.%N)
  $B run /work/main/configs/sog.yaml --set "inputs=[{files: $sc.splat}]" --set output.dir=out --set output.ply=false --set backend.device=cpu $S --set "channels.weights=[10,10,10,0.75,0.75,0.75,1.5,1.5,1.5,3,3,3,3]" > $sc.run.log 2>&1
  echo "$sc sort $(python3 -c "print(round($(date +%s.%N)-$t0,1))") s"
  $B eval out/$sc.vertex.h5 --scheme sog --orders morton --codecs png,webp --json --images img-$sc > $sc.eval.json
  python3 -c "import json; d=json.load(open('$sc.eval.json')); print('$sc', d['ratios'])"
  for o in sorted morton; do for f in img-$sc/$o/*.png; do /tmp/audit-eval/sweep $f; done; done > $sc.sweep.txt
done
