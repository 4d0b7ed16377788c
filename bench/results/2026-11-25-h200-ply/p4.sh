# p4: the PLY thread's OpenMP team (PLY_THREADS in pipeline/stage_write.c) of 2, 4 (as
# shipped), 8 and 16 now that each block's writeback starts as it is written; builds of
# ddb36c6 differing only in that constant, alternating; 3.07M and 7.27M splats through
# sog.yaml with the sorted PLY, 3 processes each. Stage times from job_done.
cd .dev && tar xJf libs.tar.xz && tar xJf pv.tar.xz && cd ..
export LD_LIBRARY_PATH=$PWD/.dev/lib
B=$PWD/.dev/bin; J=$OUT/p4.jsonl; : > $J; W=/tmp/p4w; rm -rf $W; mkdir -p $W
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
  for r in 1 2 3; do for t in 2 4 8 16; do
    rm -rf $W/out; sync; t0=$(date +%s.%N)
    .dev/pv/cuplas$t run configs/sog.yaml --set "inputs=[{files: $W/s$k.ply}]" --set output.dir=$W/out \
      --set output.ply=true --set backend.device=gpu --log-format json > $W/log 2>&1
    t1=$(date +%s.%N); rec "s$k-t$t-r$r" $W/log $t0 $t1
    (cd $W/out && md5sum *.ply | cut -c1-16 | sed "s/^/s$k /") >> $OUT/p4-md5.txt
  done; done
  rm -f $W/s$k.ply
done
echo "== table"
python3 - $J <<'PY'
import json,sys,statistics as st
rows=[json.loads(l) for l in open(sys.argv[1])]
for s in ('s27','s64'):
    for t in (2,4,8,16):
        v=[r for r in rows if r['run'].startswith('%s-t%d-'%(s,t))]
        m=lambda k: st.median(r.get(k,0) for r in v)
        print('%s t=%-2d process med %.3f [%s] write %.3f enc %.3f ply %.3f ok %s' % (s,t,m('process_s'),' '.join('%.3f'%r['process_s'] for r in v),m('write_s'),m('encode_s'),m('ply_s'),all(r['ok'] for r in v)))
PY
sort $OUT/p4-md5.txt | uniq -c
