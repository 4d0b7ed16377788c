# r13: after the per-group-size occupancy bound (sort_gpu.cu): the whole test_gpu, then
# default and best on colors_1024 / 2048^2 x 3 (bench_sort --runs 5 / 3): same AND as r10/r12.
cd .dev && tar xJf libs.tar.xz && cd ..
export LD_LIBRARY_PATH=$PWD/.dev/lib
B=$PWD/.dev/bin; J=$OUT/r13.jsonl; : > $J
( time $B/test_gpu ) > $OUT/r13-test_gpu.txt 2>&1; echo "test_gpu rc=$?"
grep -E "^\[  (PASSED|FAILED) \]|^real" $OUT/r13-test_gpu.txt
$B/bench_sort --runs 5 .dev/peer-inputs.h5:/colors_1024 colors:2048x2048 normal:1024x1024x16 2>/dev/null | sed 's/^{/{"label":"default",/' >> $J
$B/bench_sort --runs 3 --set sort.preset=best .dev/peer-inputs.h5:/colors_1024 2>/dev/null | sed 's/^{/{"label":"best",/' >> $J
echo "== table"
python3 -c "
import json
for l in open('$J'):
    d=json.loads(l); print('%-8s %-28s %9.1f ms AND %.4f passes %d' % (d['label'], d['case'][-28:], d['device_ms'], d['and_after'], d['passes']))"
