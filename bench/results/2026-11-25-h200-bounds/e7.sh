# e7: the PLY thread's OpenMP team of 4 instead of all cores, against the session's head
# before it (00e6b4e, "old"), alternating in one call: 3.07M and 7.27M splats through
# sog.yaml with the sorted PLY, 4 processes each build. Stage times from job_done.
cd .dev && tar xJf libs.tar.xz && cd ..
export LD_LIBRARY_PATH=$PWD/.dev/lib
B=$PWD/.dev/bin; J=$OUT/e7.jsonl; : > $J; W=/tmp/e7w; rm -rf $W; mkdir -p $W
rec() { # rec NAME LOG T0 T1
python3 - "$@" >> $J <<'PY'
import json,sys
name,log,t0,t1=sys.argv[1:5]
ev={}
for l in open(log):
    if l.startswith('{'):
        d=json.loads(l); ev[d['event']]=d
j=ev.get('job_done',{})
o={"run":name,"process_s":round(float(t1)-float(t0),4),"ok":bool(j)}
o.update({k:round(v,4) for k,v in j.items() if isinstance(v,(int,float)) and k.endswith('_s')})
print(json.dumps(o))
PY
}
for k in 27 64; do
  $B/scene_tile .dev/plant.splat $W/s$k.ply $k; cat $W/s$k.ply > /dev/null
  for r in 1 2 3 4; do for b in old new; do
    bin=$([ $b = old ] && echo .dev/old/cuplas || echo $B/cuplas)
    rm -rf $W/out; sync; t0=$(date +%s.%N)
    $bin run configs/sog.yaml --set "inputs=[{files: $W/s$k.ply}]" --set output.dir=$W/out \
      --set output.ply=true --set backend.device=gpu --log-format json > $W/log 2>&1
    t1=$(date +%s.%N); rec "s$k-$b-r$r" $W/log $t0 $t1
    md5sum $W/out/*.ply | cut -c1-16 >> $OUT/e7-md5.txt
  done; done
  rm -f $W/s$k.ply
done
echo "== table"
python3 - $J <<'PY'
import json,sys,statistics as st
rows=[json.loads(l) for l in open(sys.argv[1])]
for s in ('s27','s64'):
    for b in ('old','new'):
        v=[r for r in rows if r['run'].startswith(s+'-'+b)]
        m=lambda k: st.median(r.get(k,0) for r in v)
        print('%s %s process med %.3f [%s] write %.3f enc %.3f ply %.3f' % (s,b,m('process_s'),' '.join('%.3f'%r['process_s'] for r in v),m('write_s'),m('encode_s'),m('ply_s')))
PY
sort $OUT/e7-md5.txt | uniq -c
