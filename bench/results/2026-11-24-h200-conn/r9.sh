# r9: 0.6.0: the whole GPU test suite (tests/test_gpu, built here), CPU/GPU parity of every path
cd .dev && tar xJf libs.tar.xz && cd ..
export LD_LIBRARY_PATH=$PWD/.dev/lib
( time .dev/bin/test_gpu ) > $OUT/test_gpu.txt 2>&1; echo "test_gpu rc=$?"
