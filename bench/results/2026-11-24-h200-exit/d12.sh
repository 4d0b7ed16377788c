# d12: after the review (the polish's launch bound from a per-context cache
# instead of an occupancy query each sort): test_gpu quick, and the same
# index and AND as d6/d11 on three grids.
cd .dev && tar xJf libs.tar.xz && cd ..
export LD_LIBRARY_PATH=$PWD/.dev/lib
B=$PWD/.dev/bin
( time CUPLAS_TEST_QUICK=1 timeout 200 $B/test_gpu ) > $OUT/d12-test_gpu.txt 2>&1; echo "test_gpu rc $?" >> $OUT/d12-test_gpu.txt
grep -E "PASSED|FAILED|real|rc " $OUT/d12-test_gpu.txt
for c in .dev/peer-inputs.h5:/colors_1024 colors:32x32; do
  timeout 40 $B/bench_sort --runs 3 --set sort.preset=best $c 2>/dev/null >> $OUT/d12.jsonl
done
timeout 30 $B/bench_sort --runs 5 .dev/peer-inputs.h5:/colors_1024 2>/dev/null >> $OUT/d12.jsonl
python3 -c "
import json
for l in open('$OUT/d12.jsonl'):
    d=json.loads(l); print('%-28s %9.1f ms AND %.4f' % (d['case'][-28:], d['device_ms'], d['and_after']))"
