#!/bin/bash
# usage: rv.sh NAME BIN WPOS WDC WSC WROT [extra --set ...]
N=$1; B=$2; a=$3; b=$4; c=$5; d=$6; shift 6
cd /tmp/xp; rm -rf /tmp/xp/$N
W="[$a,$a,$a,$b,$b,$b,$c,$c,$c,$d,$d,$d,$d]"
S=$(date +%s.%N)
OMP_NUM_THREADS=2 $B run /work/main/configs/sog.yaml --set "inputs=[{files: /work/shared/data/scenes/academic_tarot_cards.splat}]" \
  --set output.dir=/tmp/xp/$N --set backend.device=cpu --set output.ply=false --set "channels.weights=$W" "$@" > $N.log 2>&1 || { echo "$N run failed"; exit 1; }
E=$(date +%s.%N)
H5=$(ls /tmp/xp/$N/*.h5)
XP_SORTED_ONLY=1 OMP_NUM_THREADS=2 $B eval $H5 --scheme sog --codecs webp --webp-method 6 --json > $N.json
python3 - $N $S $E <<'PY'
import json,sys
n=sys.argv[1]; d=json.load(open(f'/tmp/xp/{n}.json'))
b=d['image_bytes']['sorted']['webp']; t=sum(b.values())
print(f"{n:24s} sortS {float(sys.argv[3])-float(sys.argv[2]):5.1f} AND {d['and']:.4f} webp {t} ratio {t/1178440:.4f} ", ' '.join(f"{k}={v//1000}" for k,v in b.items()))
PY
