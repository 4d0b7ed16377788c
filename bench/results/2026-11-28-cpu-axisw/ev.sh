#!/bin/bash
# ev.sh NAME PLY : bytes of the PLY's own order (as laid in rows) under sog/webp m6
N=$1; P=$2; cd /tmp/win; rm -f $N.h5
OMP_NUM_THREADS=2 /work/main/cuplas sort $P $N.h5 --preset fast --grid square --backend cpu > /dev/null 2>&1 || { echo sort failed; exit 1; }
XP_ONLY=1 OMP_NUM_THREADS=2 /tmp/bp2/cuplas eval $N.h5 --scheme sog --codecs webp --webp-method 6 --json > $N.json
python3 - $N "$3" <<'PY'
import json,sys
n=sys.argv[1]; d=json.load(open(f'/tmp/win/{n}.json'))
b=d['image_bytes']['input']['webp']; keep=['xyz_lo','xyz_hi','f_dc','scale','rot','opacity']; t=sum(b[k] for k in keep)
print(f"{n:16s} {sys.argv[2]:24s} webp {t} ratio {t/1178440:.4f} ", ' '.join(f"{k}={b[k]//1000}" for k in keep), flush=True)
PY
