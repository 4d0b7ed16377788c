# e6: the session's head (4210261: e5 plus the transform's per-row steps on the pool): the
# scenes again, GPU = CPU bytes for tarot, test_gpu quick, and one-file 1024^2 x 3 `cuplas
# sort` processes (issue 17's 0.40 s), 7 runs. bench/scene_tile lays plant.splat 8, 27 and 64 times (0.91M, 3.07M and 7.27M
# splats, 62 float properties, 0.23, 0.76 and 1.80 GB), then `cuplas run configs/sog.yaml` on the GPU with the sorted PLY (3 runs) and
# without it (1 run). Wall clock per process; stage times from job_done.
cd .dev && tar xJf libs.tar.xz && cd ..
export LD_LIBRARY_PATH=$PWD/.dev/lib
B=$PWD/.dev/bin; J=$OUT/e6.jsonl; : > $J; W=/tmp/e6w; rm -rf $W; mkdir -p $W
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
  ls -l $W/out >> $OUT/e6-sizes.txt; rm -f $W/s$k.ply
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
for dev in gpu cpu; do
  $B/cuplas run configs/sog.yaml --set "inputs=[{files: .dev/tarot.splat}]" --set output.dir=$W/t-$dev \
    --set backend.device=$dev --set logging.level=warn > $W/t-$dev.log 2>&1; echo "tarot $dev rc $?"
done
ls $W/t-gpu $W/t-cpu; cmp $W/t-gpu/tarot.vertex.ply $W/t-cpu/tarot.vertex.ply && echo "tarot PLY: GPU = CPU bytes"
$B/cmp_outputs $W/t-gpu $W/t-cpu
( time CUPLAS_TEST_QUICK=1 timeout 200 $B/test_gpu ) > $OUT/e6-test_gpu.txt 2>&1; echo "test_gpu rc $?" >> $OUT/e6-test_gpu.txt
grep -E "PASSED|FAILED|real|rc " $OUT/e6-test_gpu.txt
$B/cuplas gen --kind colors --size 1024x1024 $W/c.h5 >/dev/null; $B/cuplas sort $W/c.h5 $W/w.h5 --force >/dev/null 2>&1
for k in 1 2 3 4 5 6 7; do t0=$(date +%s.%N); $B/cuplas sort $W/c.h5 $W/s.h5 --force > /dev/null 2>&1; t1=$(date +%s.%N)
  python3 -c "print('{\"part\":\"one\",\"process_s\":%.4f}' % ($t1-$t0))" >> $OUT/e6-one.jsonl; done
python3 -c "
import json,statistics as st
o=[json.loads(l)['process_s'] for l in open('$OUT/e6-one.jsonl')]
print('one-file median %.3f %s' % (st.median(o), o))"
