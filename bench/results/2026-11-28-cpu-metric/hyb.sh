#!/bin/bash
# hyb.sh NAME CRIT FRAC
set -e
N=$1; cd /tmp/uv
python3 hyb.py prep $2 $3 > $N.prep
R=$(awk '{print $7}' $N.prep)
rm -rf /tmp/uv/hS_$N
OMP_NUM_THREADS=2 /work/main/cuplas run /work/main/configs/sog.yaml --set "inputs=[{files: /tmp/uv/S.ply}]" --set output.dir=/tmp/uv/hS_$N --set backend.device=cpu --set output.ply=false --set "grid.shape=${R}x338" > hS_$N.log 2>&1
H5=$(ls /tmp/uv/hS_$N/*.h5); h5dump -d /vertex/index -b LE -o hS_$N.bin $H5 >/dev/null
python3 hyb.py join hS_$N.bin /tmp/uv/full_$N.ply
rm -f /tmp/uv/hF_$N.h5
OMP_NUM_THREADS=2 /work/main/cuplas sort /tmp/uv/full_$N.ply /tmp/uv/hF_$N.h5 --preset fast --grid square --backend cpu > /dev/null 2>&1
XP_ONLY=1 OMP_NUM_THREADS=2 /tmp/bp2/cuplas eval /tmp/uv/hF_$N.h5 --scheme sog --codecs webp --webp-method 6 --json > $N.json
python3 - $N "$(cat $N.prep)" <<'PY'
import json,sys
n=sys.argv[1]; d=json.load(open(f'/tmp/uv/{n}.json'))
b=d['image_bytes']['input']['webp']; keep=['xyz_lo','xyz_hi','f_dc','scale','rot','opacity']; t=sum(b[k] for k in keep)
print(f"{n:16s} {sys.argv[2]:30s} webp {t} ratio {t/1178440:.4f} ", ' '.join(f"{k}={b[k]//1000}" for k in keep), flush=True)
PY
