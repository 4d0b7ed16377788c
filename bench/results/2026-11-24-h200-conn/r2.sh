# r2 (as run; reconstructed from the session log): issue 16's 2048^2 x 3 candidates
# (bench_sort --runs 5: colors_1024 and colors:2048x2048), one-file start-up probes
# (plain, CUDA_DEVICE_MAX_CONNECTIONS=1, OMP_WAIT_POLICY=passive i.e. no re-exec,
# output.fsync=false, --preset fast; 5 runs each), 4096^2 x 16 with fsync on/off, dd of 1 GiB
# with conv=fsync. Build: 5a5b1ca (stored noise planes).
cd .dev && tar xJf libs.tar.xz && cd ..
export LD_LIBRARY_PATH=$PWD/.dev/lib
B=$PWD/.dev/bin; J=$OUT/r2.jsonl; : > $J; W=/tmp/r2w; rm -rf $W; mkdir -p $W
VARS="default:
k16p1i2:--set sort.group_size=16 --set sort.max_passes=1 --set sort.improvement_break=1e-2
k16p1i3:--set sort.group_size=16 --set sort.max_passes=1 --set sort.improvement_break=1e-3
k16p2i3:--set sort.group_size=16 --set sort.max_passes=2 --set sort.improvement_break=1e-3
k8p2i3:--set sort.group_size=8 --set sort.max_passes=2 --set sort.improvement_break=1e-3
k8p1i3:--set sort.group_size=8 --set sort.max_passes=1 --set sort.improvement_break=1e-3
k16p1i3c3:--set sort.group_size=16 --set sort.max_passes=1 --set sort.improvement_break=1e-3 --set sort.max_configs=3
k16p1i2d96:--set sort.group_size=16 --set sort.max_passes=1 --set sort.improvement_break=1e-2 --set sort.radius_decay=0.96"
while IFS= read -r line; do
  lab=${line%%:*}; sets=${line#*:}
  $B/bench_sort --runs 5 $sets .dev/peer-inputs.h5:/colors_1024 colors:2048x2048 2>/dev/null | sed "s/^{/{\"part\":\"sweep\",\"label\":\"$lab\",/" >> $J
done <<< "$VARS"
# one-file: `cuplas sort` of cuplas gen --kind colors --size 1024x1024, 5 runs per label,
# process wall from date +%s.%N around it, run_timing/job_done from the JSON log (debug)
#   plain | CUDA_DEVICE_MAX_CONNECTIONS=1 | OMP_WAIT_POLICY=passive | --set output.fsync=false | --preset fast
# big: cuplas gen --kind normal --size 4096x4096 --channels 16 --deflate 0; cuplas sort, fsync true/false x2
# disk: dd if=/dev/zero of=FILE bs=1M count=1024 conv=fsync, twice
