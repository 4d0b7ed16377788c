# d2: where the write stage's time goes at 7.27M splats (plant tiled 64 times, 1.8 GB PLY)
# through sog.yaml on the GPU: the PLY leg and the HDF5 encode, each alone and together.
#   device run, kind nvidia-h200, carry [".dev"] (plant.splat and scene_tile in it):
#   bash bench/results/2026-11-25-h200-side/d2.sh
set -u
source bench/device-lib.sh; dev_setup d2
$B/scene_tile .dev/plant.splat $W/s64.ply 64 > /dev/null; cat $W/s64.ply > /dev/null
run() {  # run LABEL --set ...
    local label=$1; shift; rm -rf $W/out; sync
    local t0=$(date +%s.%N)
    $B/cuplas run configs/sog.yaml --set "inputs=[{files: $W/s64.ply}]" --set output.dir=$W/out \
        --set backend.device=gpu --log-format json "$@" > $W/log 2>&1
    local t1=$(date +%s.%N)
    rec "$label" $W/log $t0 $t1
}
for r in 1 2 3; do
    run both     --set output.ply=true
    run h5-only  --set output.ply=false
    run ply-raw  --set output.ply=true  --set output.deflate=0
    run raw-only --set output.ply=false --set output.deflate=0
    run h5-noshuf --set output.ply=false --set output.shuffle=false
done
echo "== d2 (medians of 3)"
python3 - $J <<'PY'
import json, sys, statistics as st, collections
rows = collections.defaultdict(list)
for l in open(sys.argv[1]):
    d = json.loads(l); rows[d["label"]].append(d)
keys = ["process_s", "prep_s", "sort_s", "write_s", "encode_s", "h5_s", "ply_s"]
print("%-10s %s" % ("", " ".join("%9s" % k[:-2] for k in keys)))
for lab, v in rows.items():
    print("%-10s %s" % (lab, " ".join("%9.3f" % st.median([d.get(k, 0) for d in v]) for k in keys)))
PY
