#!/bin/bash
# t11: the presets table with 0.5.0 on the H200 (bench/presets-device.sh
# part presets: bench_sort --runs 5 --set sort.preset=NAME over the peers'
# colours, generated 2048^2 colours, 1024^2 and 2048^2 x 16 normals).
cd .dev && tar xJf libs.tar.xz && cd ..
PD_PARTS=presets bash bench/presets-device.sh 2>&1 | tail -22
