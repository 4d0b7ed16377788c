# r11 (as run): best with sort.local_group_size 16 and local_passes 1 / 2 / 4 (and 2 with
# radius_decay 0.995), on 0.6.0's bench_sort before best changed; --runs 3, median;
# colors_1024 at seeds 1337, 1, 2 and colors:2048x2048:
#   bench_sort --runs 3 --set sort.preset=best --set sort.seed=S [--set ...] peer-inputs.h5:/colors_1024
