# r17: after the review's one-rule helper (cuplas_group_small): same AND as r13/r16, and
# test_gpu in its quick mode (CUPLAS_TEST_QUICK=1).
cd .dev && tar xJf libs.tar.xz && cd ..
export LD_LIBRARY_PATH=$PWD/.dev/lib
B=$PWD/.dev/bin; P=.dev/peer-inputs.h5
$B/bench_sort --runs 5 $P:/colors_256 $P:/colors_1024 colors:2048x2048 normal:1024x1024x16 2>/dev/null > $OUT/r17.jsonl
$B/bench_sort --runs 3 --set sort.preset=best $P:/colors_1024 2>/dev/null >> $OUT/r17.jsonl
( time CUPLAS_TEST_QUICK=1 $B/test_gpu ) > $OUT/r17-test_gpu.txt 2>&1; echo "test_gpu rc=$?"
grep -E "PASSED|FAILED" $OUT/r17-test_gpu.txt
python3 -c "
import json
for l in open('$OUT/r17.jsonl'):
    d=json.loads(l); print('%-28s %9.1f ms AND %.4f passes %d' % (d['case'][-28:], d['device_ms'], d['and_after'], d['passes']))"
