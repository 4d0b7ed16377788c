# p1: the sorted PLY's blocks with their writeback started as written (output.fsync),
# against the build before it ("old"), alternating in one call: 3.07M and 7.27M splats
# through sog.yaml with the sorted PLY, 3 processes each build; then export-ply of the
# 7.27M result, 3 each. Stage times from job_done; md5 of every output.
cd .dev && tar xJf libs.tar.xz && cd ..
export LD_LIBRARY_PATH=$PWD/.dev/lib
B=$PWD/.dev/bin; J=$OUT/p1.jsonl; : > $J; W=/tmp/p1w; rm -rf $W; mkdir -p $W
rec() { # rec NAME LOG T0 T1
python3 - "$@" >> $J <<'PY'
import json,sys
name,log,t0,t1=sys.argv[1:5]
ev={}
for l in open(log):
    if l.startswith('{'):
        d=json.loads(l); ev[d['event']]=d
j=ev.get('job_done',{})
o={"run":name,"process_s":round(float(t1)-float(t0),4),"ok":bool(j) or name.find('export')>=0}
o.update({k:round(v,4) for k,v in j.items() if isinstance(v,(int,float)) and k.endswith('_s')})
print(json.dumps(o))
PY
}
for k in 27 64; do
  $B/scene_tile .dev/plant.splat $W/s$k.ply $k; cat $W/s$k.ply > /dev/null
  for r in 1 2 3; do for b in old new; do
    bin=$([ $b = old ] && echo .dev/old/cuplas || echo $B/cuplas)
    rm -rf $W/out; sync; t0=$(date +%s.%N)
    $bin run configs/sog.yaml --set "inputs=[{files: $W/s$k.ply}]" --set output.dir=$W/out \
      --set output.ply=true --set backend.device=gpu --log-format json > $W/log 2>&1
    t1=$(date +%s.%N); rec "s$k-$b-r$r" $W/log $t0 $t1
    (cd $W/out && md5sum *.ply | sed "s/^/s$k /" | cut -c1-24) >> $OUT/p1-md5.txt
  done; done
  if [ $k = 64 ]; then
    cp $W/out/*.h5 $W/res.h5
    for r in 1 2 3; do for b in old new; do
      bin=$([ $b = old ] && echo .dev/old/cuplas || echo $B/cuplas)
      rm -f $W/e.ply; sync; t0=$(date +%s.%N)
      $bin export-ply $W/res.h5 $W/s$k.ply $W/e.ply > $W/log 2>&1
      t1=$(date +%s.%N); rec "s$k-export-$b-r$r" $W/log $t0 $t1
      md5sum $W/e.ply | sed "s/^/export /" | cut -c1-24 >> $OUT/p1-md5.txt
    done; done
  fi
  rm -f $W/s$k.ply
done
echo "== table"
python3 - $J <<'PY'
import json,sys,statistics as st
rows=[json.loads(l) for l in open(sys.argv[1])]
for s in ('s27','s64','s64-export'):
    for b in ('old','new'):
        v=[r for r in rows if r['run'].startswith(s+'-'+b)]
        if not v: continue
        m=lambda k: st.median(r.get(k,0) for r in v)
        print('%-10s %s process med %.3f [%s] write %.3f enc %.3f ply %.3f ok %s' % (s,b,m('process_s'),' '.join('%.3f'%r['process_s'] for r in v),m('write_s'),m('encode_s'),m('ply_s'),all(r['ok'] for r in v)))
PY
sort $OUT/p1-md5.txt | uniq -c
