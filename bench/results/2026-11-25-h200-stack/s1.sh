# s1: issue 16, tarot's WebP at method 6: two levers stacked, five seeds each.
#   lin.ply / mix5.ply: the base result's rows with wx, wy, wz = positions by value / half
#   quantile, half value (../2026-11-25-cpu-rankpos/mkrank.py); sorted on wx, wy, wz.
#   shipped = configs/sog.yaml's settings; strong = the H200 sweep's stronger sort.
#   device run, kind nvidia-h200, carry [".dev"] (lin.ply and mix5.ply in it):
#   bash bench/results/2026-11-25-h200-stack/s1.sh
set -u
source bench/device-lib.sh; dev_setup s1
mkdir -p $OUT/ev
CH=(--set 'channels.use=[wx,wy,wz,"f_dc_0-2","scale_0-2","rot_0-3"]'
    --set 'channels.groups=["wx,wy,wz","f_dc_0-2","scale_0-2","rot_0-3"]')
STRONG=(--set sort.polish_cells=6 --set sort.radius_decay=0.99 --set sort.max_configs=8
        --set sort.max_passes=8 --set sort.improvement_break=1e-5
        --set "channels.weights=[10,10,10,0.75,0.75,0.75,1.5,1.5,1.5,3,3,3,3]")
sortone() {  # sortone NAME PLY SEED [--set ...]
    local name=$1 ply=$2 seed=$3; shift 3
    $B/cuplas run configs/sog.yaml --set "inputs=[{files: .dev/$ply}]" --set output.dir=$W/$name.$seed \
        --set backend.device=gpu --set output.ply=false --set sort.seed=$seed "${CH[@]}" "$@" \
        > $W/log.$name.$seed 2>&1 || { echo "sort $name $seed failed"; tail -2 $W/log.$name.$seed; }
    mv $W/$name.$seed/*.h5 $W/$name.$seed.h5
}
for seed in 1337 1 2 3 4; do
    sortone shipped lin.ply $seed
    sortone shmix5 mix5.ply $seed
    sortone strong lin.ply $seed "${STRONG[@]}"
    sortone stmix5 mix5.ply $seed "${STRONG[@]}"
done
ls $W/*.h5 | sed 's|.*/||; s|\.h5$||' | xargs -P 8 -I{} sh -c \
    "OMP_NUM_THREADS=2 $B/cuplas eval $W/{}.h5 --scheme sog --codecs png,webp --webp-method 6 --json > $OUT/ev/{}.json"
echo "== s1: sorted / Morton, SOG images, PNG level 9 and WebP method 6"
python3 - $OUT/ev <<'PY'
import json, sys, os, statistics as st, collections
rows = collections.defaultdict(dict)
for f in sorted(os.listdir(sys.argv[1])):
    d = json.load(open(os.path.join(sys.argv[1], f)))
    name, seed = f[:-5].split(".")
    rows[name][seed] = (d["ratios"]["morton"]["png"], d["ratios"]["morton"]["webp"],
                        d["image_bytes"]["sorted"]["webp"]["xyz_lo"] // 1000,
                        d["image_bytes"]["sorted"]["webp"]["xyz_hi"] // 1000)
for name, v in rows.items():
    w = [x[1] for x in v.values()]; p = [x[0] for x in v.values()]
    print("%-8s webp mean %.4f min %.4f max %.4f | png mean %.4f | seeds %s" % (name, st.mean(w), min(w), max(w), st.mean(p),
          " ".join("%s:%.4f(lo%d,hi%d)" % (s, x[1], x[2], x[3]) for s, x in sorted(v.items()))))
PY
