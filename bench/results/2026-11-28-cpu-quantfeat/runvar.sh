#!/bin/bash
# usage: runvar.sh NAME USE WEIGHTS GROUPS   (sog.yaml otherwise; unit dropped)
set -e
N=$1; USE=$2; W=$3; G=$4
cd /tmp/lever
OMP_NUM_THREADS=1 /work/main/cuplas run /work/main/configs/sog.yaml \
  --set "inputs=[{files: /tmp/lever/in/${PLY:-tarot_q.ply}}]" --set output.dir=/tmp/lever/$N \
  --set backend.device=cpu --set output.ply=false \
  --set "channels.use=$USE" --set "channels.weights=$W" --set "channels.unit=${UNIT:-[]}" \
  --set "channels.groups=$G" > $N.run.log 2>&1
H5=$(ls /tmp/lever/$N/*.h5)
OMP_NUM_THREADS=1 /work/main/cuplas eval $H5 --scheme sog --codecs png,webp --webp-method 6 --json > $N.json
