# p3: the final build of the session (the write stage in its own file) against f7091d9 ("old"):
# the 3.07M scene through sog.yaml on the GPU (streamed HDF5 result and the PLY), 2 each,
# md5 of both outputs; then test_gpu in quick mode.
cd .dev && tar xJf libs.tar.xz && cd ..
export LD_LIBRARY_PATH=$PWD/.dev/lib
B=$PWD/.dev/bin; W=/tmp/p3w; rm -rf $W; mkdir -p $W
$B/scene_tile .dev/plant.splat $W/s27.ply 27; cat $W/s27.ply > /dev/null
for r in 1 2; do for b in old new; do
  bin=$([ $b = old ] && echo .dev/old/cuplas || echo $B/cuplas)
  rm -rf $W/out; sync; t0=$(date +%s.%N)
  $bin run configs/sog.yaml --set "inputs=[{files: $W/s27.ply}]" --set output.dir=$W/out \
    --set output.ply=true --set backend.device=gpu --log-format json > $W/log 2>&1
  t1=$(date +%s.%N)
  echo "s27-$b-r$r process_s $(python3 -c "print(round($t1-$t0,3))") rc $(grep -c '"job_done"' $W/log)" >> $OUT/p3.txt
  (cd $W/out && md5sum *.ply | cut -c1-16 | sed "s/^/$b ply /"; python3 -c "
import h5py,hashlib
f=h5py.File([x for x in __import__('os').listdir('.') if x.endswith('.h5')][0],'r')
g=f['vertex']; print('$b h5', hashlib.md5(g['index'][...].tobytes()+g['sorted'][...].tobytes()).hexdigest()[:16])" 2>/dev/null || echo "$b h5 (no h5py)") >> $OUT/p3-md5.txt
  mkdir -p $W/keep-$b; cp $W/out/*.h5 $W/keep-$b/ 2>/dev/null
done; done
$B/cmp_outputs $W/keep-old $W/keep-new >> $OUT/p3.txt 2>&1
( time CUPLAS_TEST_QUICK=1 timeout 200 $B/test_gpu ) > $OUT/p3-test_gpu.txt 2>&1; echo "test_gpu rc $?" >> $OUT/p3-test_gpu.txt
cat $OUT/p3.txt; sort $OUT/p3-md5.txt | uniq -c
grep -E "PASSED|FAILED|real|rc " $OUT/p3-test_gpu.txt
