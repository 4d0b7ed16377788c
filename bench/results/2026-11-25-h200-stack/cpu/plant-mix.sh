set -e
cd /tmp/e16/plant
/work/main/cuplas run /work/main/configs/sog.yaml --set "inputs=[{files: /work/shared/data/scenes/plant.splat}]" --set output.dir=pb --set backend.device=cpu --set output.ply=false > log.base 2>&1
python3 ../mkply.py pb/*.h5 lin.ply lin 0
sed 's|/tmp/e16/lin.ply|/tmp/e16/plant/lin.ply|' ../mkrank.py > mkrank.py
python3 mkrank.py mix5.ply mix0.5
for seed in 1337 1; do
  for v in lin mix5; do
    /work/main/cuplas run /work/main/configs/sog.yaml --set "inputs=[{files: /tmp/e16/plant/$v.ply}]" --set output.dir=r --set backend.device=cpu --set output.ply=false --set sort.seed=$seed \
      --set 'channels.use=[wx,wy,wz,"f_dc_0-2","scale_0-2","rot_0-3"]' --set 'channels.groups=["wx,wy,wz","f_dc_0-2","scale_0-2","rot_0-3"]' > log.$v.$seed 2>&1
    mv r/*.h5 p$v.$seed.h5; rm -rf r
    OUTDIR=. CUPLAS=/work/main/cuplas bash ../ev.sh p$v.$seed.h5 p$v.$seed
  done
done
