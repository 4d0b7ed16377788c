# r3 (as run; reconstructed from the session log): k = 16 / 2-pass neighbours at colors_1024
# and colors:2048x2048 (bench_sort --runs 5); conn_probe (this folder: when the driver reads
# CUDA_DEVICE_MAX_CONNECTIONS), 5 x {none, before, after}; one-file `cuplas sort` 1024^2 x 3 with
# CUDA_DEVICE_MAX_CONNECTIONS = 8, 1, 2, 4 in interleaved rounds (5). Build: 5a5b1ca.
K16="--set sort.group_size=16 --set sort.max_passes=2 --set sort.improvement_break=1e-3"
VARS="k16p2i3d92:$K16 --set sort.radius_decay=0.92
k16p2i3d93:$K16 --set sort.radius_decay=0.93
k16p2i3d94:$K16 --set sort.radius_decay=0.94
k16p2i3d93c3:$K16 --set sort.radius_decay=0.93 --set sort.max_configs=3
k16p2i2:--set sort.group_size=16 --set sort.max_passes=2 --set sort.improvement_break=1e-2
k16p3i2:--set sort.group_size=16 --set sort.max_passes=3 --set sort.improvement_break=1e-2
k16p2i3d93m1:$K16 --set sort.radius_decay=0.93 --set sort.min_configs=1
k4d96:--set sort.radius_decay=0.96"
# (loop as in r2.sh; nvcc -O2 -arch=sm_90 -cudart static conn_probe.cu -o conn_probe)
