# e1: issue 17's two unmet targets with 0.7.0 (bdc8fad), as processes: 4096^2 and
# 8192^2 x 16 `cuplas sort` with default outputs (deflate + shuffle, fsync) against
# their sort, the disk's durable write rate, and the driver's persistence mode.
cd .dev && tar xJf libs.tar.xz && cd ..
export LD_LIBRARY_PATH=$PWD/.dev/lib
B=$PWD/.dev/bin; J=$OUT/e1.jsonl; : > $J; W=/tmp/e1w; rm -rf $W; mkdir -p $W
nvidia-smi -q | grep -E "Product Name|Persistence Mode|Driver Version" > $OUT/e1-gpu.txt
df -T /tmp | tail -1 >> $OUT/e1-gpu.txt
for k in 1 2; do dd if=/dev/zero of=$W/dd.bin bs=16M count=64 conv=fsync 2>&1 | tail -1 >> $OUT/e1-disk.txt; rm -f $W/dd.bin; done
rec() { # rec PART LOG T0 T1 N
python3 - "$@" >> $J <<'PY'
import json,sys
part,log,t0,t1,n=sys.argv[1:6]
ev={}
for l in open(log):
    if l.startswith('{'):
        d=json.loads(l); ev[d['event']]=d
t=ev.get('run_timing',{}); j=ev.get('job_done',{})
o={"part":part,"n":int(n),"process_s":round(float(t1)-float(t0),4)}
o.update({k:round(v,4) for k,v in j.items() if isinstance(v,(int,float)) and (k.endswith('_s') or k.endswith('_ms'))})
o.update({'t_'+k:round(v,4) for k,v in t.items() if isinstance(v,(int,float)) and k.endswith('_s')})
print(json.dumps(o))
PY
}
for n in 4096 8192; do
  $B/cuplas gen --kind normal --size ${n}x$n --channels 16 --deflate 0 $W/n.h5 > /dev/null; cat $W/n.h5 > /dev/null
  for k in 1 2 3; do
    rm -f $W/o.h5; sync; t0=$(date +%s.%N)
    $B/cuplas sort $W/n.h5 $W/o.h5 --force --log-format json --set logging.level=debug > $W/big.log 2>&1; rc=$?; t1=$(date +%s.%N)
    rec big $W/big.log $t0 $t1 $n; echo "{\"part\":\"size\",\"n\":$n,\"rc\":$rc,\"bytes\":$(stat -c %s $W/o.h5)}" >> $J
  done
  timeout 200 $B/bench_sort --runs 3 normal:${n}x${n}x16 >> $J 2>/dev/null
  rm -f $W/n.h5 $W/o.h5
done
echo "== table"; cat $OUT/e1-gpu.txt $OUT/e1-disk.txt
python3 - $J <<'PY'
import json,sys
for l in open(sys.argv[1]):
    d=json.loads(l)
    if d.get('part')=='big': print('big %d process %.3f read %.3f prep %.3f sort %.3f write %.3f enc %.3f h5 %.3f sync %.3f -> %.2fx' % (d['n'], d['process_s'], d.get('read_s',-1), d.get('prep_s',-1), d['sort_s'], d.get('write_s',-1), d.get('encode_s',-1), d.get('h5_s',-1), d.get('sync_s',-1), d['process_s']/d['sort_s']))
    elif d.get('part')=='size': print(d)
    elif 'case' in d: print(d['case'], 'device_ms', d['device_ms'], 'wall_ms', d['wall_ms'], 'AND', d['and_after'])
PY
