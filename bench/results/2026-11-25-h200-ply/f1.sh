# f1: gathered PLY rows into one file on the H200 machine: pwrite / pwrite + writeback / mmap
B=$PWD/.dev/bin; J=$OUT/f1.jsonl; : > $J
nproc; df -h /tmp | tail -1; uname -r
for rep in 1 2; do for m in pwrite wb mmap; do for t in 1 4 8 16; do
  $B/bench_filewrite /tmp/f1.dat 7270000 248 $t $m sync >> $J
done; done; done
python3 - $J <<'PY'
import json,sys
rows=[json.loads(l) for l in open(sys.argv[1])]
for r in rows: print("%-6s t=%2d write %.3f s (%.2f GB/s) sync %.3f s total %.3f ok=%s" % (r['mode'],r['threads'],r['write_s'],r['write_gb_s'],r['sync_s'],r['write_s']+r['sync_s'],r['ok']))
PY
