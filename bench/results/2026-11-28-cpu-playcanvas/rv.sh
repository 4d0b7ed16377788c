#!/bin/bash
# usage: rv.sh NAME PLY MORTON_WEBP_BYTES [--set ...]: sog.yaml sort + playcanvas eval (webp m6, sorted only)
N=$1; P=$2; M=$3; shift 3
cd /tmp/pc; rm -rf /tmp/pc/$N
OMP_NUM_THREADS=2 /work/main/cuplas run /work/main/configs/sog.yaml --set "inputs=[{files: $P}]" \
  --set output.dir=/tmp/pc/$N --set backend.device=cpu --set output.ply=false "$@" > $N.log 2>&1 || { echo "$N run failed"; tail -3 $N.log; exit 1; }
H5=$(ls /tmp/pc/$N/*.h5)
OMP_NUM_THREADS=2 /work/main/cuplas eval $H5 --scheme playcanvas --codecs webp --orders sorted --json > $N.json
python3 - $N $M <<'PY'
import json,sys
n=sys.argv[1]; d=json.load(open(f'/tmp/pc/{n}.json'))
b=d['image_bytes']['sorted']['webp']; t=sum(b.values())
print(f"{n:24s} webp {t} ratio {t/int(sys.argv[2]):.4f} ", ' '.join(f"{k}={v//1000}" for k,v in b.items()), flush=True)
PY
