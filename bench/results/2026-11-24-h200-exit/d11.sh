# d11: 32-cell groups (sort.local_group_size 32; best's small row: grids
# of under 4096 cells, with decay 0.998). test_gpu quick (pass parity at
# k = 32, whole-sort parity of best's small row), then bench_sort --runs 3
# of best on small grids and colors_1024 (unchanged: over 4096 cells).
cd .dev && tar xJf libs.tar.xz && cd ..
export LD_LIBRARY_PATH=$PWD/.dev/lib
B=$PWD/.dev/bin; J=$OUT/d11.jsonl; : > $J
( time CUPLAS_TEST_QUICK=1 timeout 300 $B/test_gpu ) > $OUT/d11-test_gpu.txt 2>&1; echo "test_gpu rc $?" >> $OUT/d11-test_gpu.txt
grep -E "PASSED|FAILED|real|rc |ERROR" $OUT/d11-test_gpu.txt | head
for c in colors:32x32 colors:60x60 .dev/peer-inputs.h5:/colors_1024; do
  timeout 60 $B/bench_sort --runs 3 --set sort.preset=best $c 2>/dev/null >> $J
done
python3 -c "
import json
for l in open('$J'):
    d=json.loads(l); print('%-28s %9.1f ms AND %.4f passes %d' % (d['case'][-28:], d['device_ms'], d['and_after'], d['passes']))"
