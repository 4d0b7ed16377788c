# e3: e2 again after the crop selection by quickselect and the parallel PLY writer
# (990d15c): bench/scene_tile lays plant.splat 8, 27 and 64 times (0.91M, 3.07M and 7.27M
# splats, 62 float properties, 0.23, 0.76 and 1.80 GB), then `cuplas run configs/sog.yaml` on the GPU with the sorted PLY (3 runs) and
# without it (1 run). Wall clock per process; stage times from job_done.
cd .dev && tar xJf libs.tar.xz && cd ..
export LD_LIBRARY_PATH=$PWD/.dev/lib
B=$PWD/.dev/bin; J=$OUT/e3.jsonl; : > $J; W=/tmp/e3w; rm -rf $W; mkdir -p $W
rec() { # rec NAME LOG T0 T1
python3 - "$@" >> $J <<'PY'
import json,sys
name,log,t0,t1=sys.argv[1:5]
ev={}
for l in open(log):
    if l.startswith('{'):
        d=json.loads(l); ev[d['event']]=d
j=ev.get('job_done',{}); t=ev.get('run_timing',{})
o={"run":name,"process_s":round(float(t1)-float(t0),4),"ok":bool(j)}
o.update({k:round(v,4) for k,v in j.items() if isinstance(v,(int,float)) and (k.endswith('_s') or k.endswith('_ms') or k in ('and_after','levels'))})
o.update({'t_'+k:round(v,4) for k,v in t.items() if isinstance(v,(int,float)) and k.endswith('_s')})
print(json.dumps(o))
PY
}
for k in 8 27 64; do
  $B/scene_tile .dev/plant.splat $W/s$k.ply $k; cat $W/s$k.ply > /dev/null
  for r in 1 2 3 0; do
    ply=$([ $r = 0 ] && echo false || echo true)
    rm -rf $W/out; sync; t0=$(date +%s.%N)
    $B/cuplas run configs/sog.yaml --set "inputs=[{files: $W/s$k.ply}]" --set output.dir=$W/out \
      --set output.ply=$ply --set backend.device=gpu --log-format json --set logging.level=debug > $W/log 2>&1
    t1=$(date +%s.%N); rec "s$k-ply-$ply-r$r" $W/log $t0 $t1
  done
  ls -l $W/out >> $OUT/e3-sizes.txt; rm -f $W/s$k.ply
done
echo "== table"
python3 - $J <<'PY'
import json,sys
for l in open(sys.argv[1]):
    d=json.loads(l)
    print('%-18s ok %d process %.3f read %.3f prep %.3f sort %.3f (gpu %.0f ms) write %.3f enc %.3f h5 %.3f ply %.3f' % (
        d['run'], d['ok'], d['process_s'], d.get('read_s',-1), d.get('prep_s',-1), d.get('sort_s',-1), d.get('gpu_sort_ms',-1),
        d.get('write_s',-1), d.get('encode_s',-1), d.get('h5_s',-1), d.get('ply_s',-1)))
PY
