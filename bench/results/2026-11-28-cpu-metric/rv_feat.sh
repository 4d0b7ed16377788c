#!/bin/bash
# usage: rv.sh NAME PLY USE WEIGHTS GROUPS UNIT [--set ...]   (BIN env: cuplas binary)
N=$1; P=$2; U=$3; W=$4; G=$5; UN=$6; shift 6
B=${BIN:-/work/main/cuplas}
cd /tmp/uv; rm -rf /tmp/uv/$N
S=$(date +%s.%N)
OMP_NUM_THREADS=2 $B run /work/main/configs/sog.yaml --set "inputs=[{files: $P}]" \
  --set output.dir=/tmp/uv/$N --set backend.device=cpu --set output.ply=false \
  --set "channels.use=$U" --set "channels.weights=$W" --set "channels.groups=$G" --set "channels.unit=$UN" "$@" > $N.log 2>&1 || { echo "$N run failed"; tail -3 $N.log; exit 1; }
E=$(date +%s.%N)
[ -n "$NOEVAL" ] && exit 0
H5=$(ls /tmp/uv/$N/*.h5)
XP_SORTED_ONLY=1 OMP_NUM_THREADS=2 /tmp/bp2/cuplas eval $H5 --scheme sog --codecs webp --webp-method 6 --json > $N.json
python3 - $N $S $E <<'PY'
import json,sys
n=sys.argv[1]; d=json.load(open(f'/tmp/uv/{n}.json'))
b=d['image_bytes']['sorted']['webp']; keep=['xyz_lo','xyz_hi','f_dc','scale','rot','opacity']; t=sum(b[k] for k in keep)
print(f"{n:24s} sortS {float(sys.argv[3])-float(sys.argv[2]):5.1f} webp {t} ratio {t/1178440:.4f} ", ' '.join(f"{k}={b[k]//1000}" for k in keep), flush=True)
PY
