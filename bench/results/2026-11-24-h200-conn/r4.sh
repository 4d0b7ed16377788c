# r4: old (b58eb70) vs new (stored noise planes, one hardware queue for a one-lane run, no
# OpenMP re-exec for GPU sorts): one-file 1024^2 x 3, 4096^2 / 8192^2 x 16 processes
# (alternating builds), and GPU vs CPU bytes of the new build.
cd .dev && tar xJf libs.tar.xz && cd ..
export LD_LIBRARY_PATH=$PWD/.dev/lib
NEW=$PWD/.dev/bin OLD=$PWD/.dev/old/bin; J=$OUT/r4.jsonl; : > $J; W=/tmp/r4w; rm -rf $W; mkdir -p $W
rec() { # rec PART BUILD LOG T0 T1 [N]
python3 - "$@" >> $J <<'PY'
import json,sys
part,b,log,t0,t1=sys.argv[1:6]; n=sys.argv[6] if len(sys.argv)>6 else ''
ev={}
for l in open(log):
    if l.startswith('{'):
        d=json.loads(l); ev[d['event']]=d
t=ev.get('run_timing',{}); j=ev.get('job_done',{})
o={"part":part,"build":b,"n":n,"process_s":round(float(t1)-float(t0),4)}
o.update({k:round(v,4) for k,v in j.items() if isinstance(v,(int,float)) and (k.endswith('_s') or k.endswith('_ms'))})
o.update({'t_'+k:round(v,4) for k,v in t.items() if isinstance(v,(int,float)) and k.endswith('_s')})
print(json.dumps(o))
PY
}
$NEW/cuplas gen --kind colors --size 1024x1024 $W/c.h5 >/dev/null
for b in old new; do bin=$([ $b = new ] && echo $NEW || echo $OLD); $bin/cuplas sort $W/c.h5 $W/w.h5 --force >/dev/null 2>&1; done
for k in 1 2 3 4 5 6 7; do for b in old new; do bin=$([ $b = new ] && echo $NEW || echo $OLD)
  t0=$(date +%s.%N); $bin/cuplas sort $W/c.h5 $W/s-$b.h5 --force --log-format json --set logging.level=debug > $W/one.log 2>&1; t1=$(date +%s.%N)
  rec one $b $W/one.log $t0 $t1; done; done
for n in 4096 8192; do
  $NEW/cuplas gen --kind normal --size ${n}x$n --channels 16 --deflate 0 $W/n.h5 > /dev/null; cat $W/n.h5 > /dev/null
  for k in 1 2; do for b in old new; do bin=$([ $b = new ] && echo $NEW || echo $OLD)
    rm -f $W/o.h5; sync; t0=$(date +%s.%N)
    $bin/cuplas sort $W/n.h5 $W/o.h5 --force --log-format json --set logging.level=debug > $W/big.log 2>&1; t1=$(date +%s.%N)
    rec big $b $W/big.log $t0 $t1 $n; ls -l $W/o.h5 | awk -v b=$b -v n=$n '{print "{\"part\":\"size\",\"build\":\""b"\",\"n\":"n",\"bytes\":"$5"}"}' >> $J
  done; done
  rm -f $W/n.h5 $W/o.h5
done
# GPU vs CPU (new build): same index and sorted grid
$NEW/cuplas gen --kind colors --size 512x512 $W/p3.h5 >/dev/null
$NEW/cuplas gen --kind normal --size 256x256 --channels 16 $W/p16.h5 >/dev/null
for g in p3 p16; do
  $NEW/cuplas sort $W/$g.h5 $W/$g-gpu.h5 --force --backend gpu >/dev/null 2>&1; a=$?
  $NEW/cuplas sort $W/$g.h5 $W/$g-cpu.h5 --force --backend cpu >/dev/null 2>&1; c=$?
  same=1; for ds in index sorted; do h5dump -b LE -d /grid/$ds -o $W/x.bin $W/$g-gpu.h5 >/dev/null 2>&1 && h5dump -b LE -d /grid/$ds -o $W/y.bin $W/$g-cpu.h5 >/dev/null 2>&1 && cmp -s $W/x.bin $W/y.bin || same=0; done
  echo "{\"part\":\"parity\",\"grid\":\"$g\",\"rc_gpu\":$a,\"rc_cpu\":$c,\"same_index_and_sorted\":$same}" >> $J
done
echo "== table"
python3 - $J <<'PY'
import json,sys,statistics as st
rows=[json.loads(l) for l in open(sys.argv[1])]
one={}
for d in rows:
    if d['part']=='one': one.setdefault(d['build'],[]).append(d)
for b,v in one.items():
    m=lambda k: st.median(x.get(k,-1) for x in v)
    print('one %s process median %.3f [%s] ctx %.3f wait %.3f sort %.3f write %.3f tear %.3f' % (b, m('process_s'), ' '.join('%.3f'%x['process_s'] for x in v), m('t_device_init_s'), m('t_first_sort_wait_s'), m('sort_s'), m('write_s'), m('t_teardown_s')))
for d in rows:
    if d['part']=='big': print('big %s %s process %.3f read %.3f prep %.3f sort %.3f write %.3f enc %.3f h5 %.3f -> %.2fx' % (d['n'], d['build'], d['process_s'], d['read_s'], d['prep_s'], d['sort_s'], d['write_s'], d['encode_s'], d['h5_s'], d['process_s']/d['sort_s']))
    if d['part'] in ('size','parity'): print(d)
PY
