# s2: issue 16, tarot's WebP: stronger sort settings on top of sog.yaml, for the 4 best weight
# rows of s1, screened at WebP method 2 (seeds 1 and 2 too for the best); the best 2 on
# tarot at method 6, the best 1 on the plant at method 6.
cd .dev && tar xJf libs.tar.xz && cd ..
export LD_LIBRARY_PATH=$PWD/.dev/lib
B=$PWD/.dev/bin; J=$OUT/s2.jsonl; : > $J; W=/tmp/s2w; rm -rf $W; mkdir -p $W
one() { # one NAME SCENE WM [--set ...]
  name=$1; scene=$2; wm=$3; shift 3
  rm -rf $W/o; t0=$(date +%s.%N)
  $B/cuplas run configs/sog.yaml --set "inputs=[{files: .dev/$scene.splat}]" --set output.dir=$W/o \
    --set output.ply=false --set backend.device=gpu "$@" > $W/log 2>&1 || { echo "{\"name\":\"$name\",\"failed\":true}" >> $J; return; }
  t1=$(date +%s.%N)
  $B/cuplas eval $W/o/*.h5 --scheme sog --codecs png,webp --webp-method $wm --json > $W/ev.json 2>/dev/null
  python3 - "$name" "$scene" "$wm" "$(python3 -c "print($t1-$t0)")" "$*" $W/ev.json >> $J <<'PY'
import json,sys
name,scene,wm,secs,args,path=sys.argv[1:7]
ib=json.load(open(path))["image_bytes"]
r={c: sum(ib["sorted"][c].values())/sum(ib["morton"][c].values()) for c in ib["sorted"]}
print(json.dumps({"name":name,"scene":scene,"webp_method":int(wm),"process_s":round(float(secs),3),"png":round(r["png"],4),"webp":round(r["webp"],4),"args":args,"sorted":ib["sorted"],"morton":ib["morton"]}))
PY
  tail -1 $J | python3 -c "import json,sys; r=json.loads(sys.stdin.read()); print('%-34s %-20s m%d png %.4f webp %.4f %.2fs'%(r['name'],r['scene'],r['webp_method'],r['png'],r['webp'],r['process_s']))"
}
w() { echo "channels.weights=[$1,$1,$1,$2,$2,$2,$3,$3,$3,$4,$4,$4,$4]"; }
Q2="--set sort.polish_cells=6 --set sort.radius_decay=0.99 --set sort.max_configs=8"
Q3="--set sort.polish_cells=6 --set sort.radius_decay=0.99 --set sort.min_configs=4 --set sort.max_configs=8 --set sort.group_size=4 --set sort.max_passes=16 --set sort.improvement_break=1e-5 --set sort.local_passes=2 --set sort.polish=8"
Q4="--set sort.polish_cells=6 --set sort.radius_decay=0.995 --set sort.max_configs=8 --set sort.polish=16"
Q5="--set sort.polish_cells=6 --set sort.radius_decay=0.99 --set sort.max_configs=8 --set sort.max_passes=8 --set sort.improvement_break=1e-5"
Q6="--set sort.polish_cells=6 --set sort.radius_decay=0.998 --set sort.min_configs=4 --set sort.max_configs=8 --set sort.polish=16"
for wt in "10 1 2 4" "8 0.75 1.5 3" "10 0.75 1.5 3" "12 1 2 4"; do
  for q in 2 3 4 5 6; do eval "Q=\$Q$q"
    one "q$q-w$(echo $wt | tr ' ' _)" academic_tarot_cards 2 --set "$(w $wt)" $Q
  done
done
echo "== screen"
python3 - $J > $W/top.txt <<'PY'
import json,sys
rows=[json.loads(l) for l in open(sys.argv[1])]
ok=sorted([r for r in rows if not r.get("failed") and r["png"]<=0.945],key=lambda r:r["webp"])
for r in ok[:2]: print(r["name"]+"\t"+r["args"])
PY
cat $W/top.txt | cut -f1
first=1
while IFS=$'\t' read -r name args; do
  eval "set -- $args"
  if [ $first = 1 ]; then
    for sd in 1 2; do one "seed$sd-$name" academic_tarot_cards 2 "$@" --set sort.seed=$sd; done
  fi
  one "m6-$name" academic_tarot_cards 6 "$@"
  if [ $first = 1 ]; then one "m6-$name" plant 6 "$@"; fi
  first=0
done < $W/top.txt
