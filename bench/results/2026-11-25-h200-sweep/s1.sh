# s1: issue 16, tarot's WebP: a grid of sog.yaml weights (positions, colour, scale, rotation)
# times two sort settings (sog.yaml's, and sog.yaml's with the 6-cell polish and best's slow
# decay and configurations), sorted on the GPU, screened with eval at WebP method 2; the
# best 4 with PNG at most 0.945 then at method 6, on tarot and the plant.
cd .dev && tar xJf libs.tar.xz && cd ..
export LD_LIBRARY_PATH=$PWD/.dev/lib
B=$PWD/.dev/bin; J=$OUT/s1.jsonl; : > $J; W=/tmp/s1w; rm -rf $W; mkdir -p $W
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
}
Q1=""; Q2="--set sort.polish_cells=6 --set sort.radius_decay=0.99 --set sort.max_configs=8"
for q in 1 2; do Q=$([ $q = 1 ] && echo "$Q1" || echo "$Q2")
for p in 6 8 10; do for c in 0.5 0.75 1; do for s in 1.5 2; do for r in 3 4; do
  one "q$q-p$p-c$c-s$s-r$r" academic_tarot_cards 2 --set "channels.weights=[$p,$p,$p,$c,$c,$c,$s,$s,$s,$r,$r,$r,$r]" $Q
done; done; done; done; done
python3 - $J > $W/top.txt <<'PY'
import json,sys
rows=[json.loads(l) for l in open(sys.argv[1])]
ok=[r for r in rows if not r.get("failed") and r["png"]<=0.945]
ok.sort(key=lambda r:r["webp"])
for r in ok[:4]: print(r["name"]+"\t"+r["args"])
PY
echo "== screen (m2), best 12 by WebP with PNG <= 0.945"
python3 - $J <<'PY'
import json,sys
rows=[json.loads(l) for l in open(sys.argv[1])]
ok=sorted([r for r in rows if not r.get("failed")],key=lambda r:r["webp"])
print("rows",len(rows),"failed",sum(1 for r in rows if r.get("failed")))
for r in [x for x in ok if x["png"]<=0.945][:12]: print("%-28s png %.4f webp %.4f %.2fs"%(r["name"],r["png"],r["webp"],r["process_s"]))
PY
while IFS=$'\t' read -r name args; do
  eval "set -- $args"
  for sc in academic_tarot_cards plant; do one "m6-$name" $sc 6 "$@"; done
done < $W/top.txt
one "m6-shipped" academic_tarot_cards 6; one "m6-shipped" plant 6
echo "== method 6"
python3 - $J <<'PY'
import json,sys
for l in open(sys.argv[1]):
    r=json.loads(l)
    if r["name"].startswith("m6"): print("%-32s %-22s png %.4f webp %.4f"%(r["name"],r["scene"],r["png"],r["webp"]))
PY
