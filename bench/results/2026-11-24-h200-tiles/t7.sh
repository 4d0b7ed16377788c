#!/bin/bash
# t7: issue 17's big grids with 0.5.0's default (4096^2 x 16 and 8192^2 x
# 16 now take the wide row): whole `cuplas sort` processes, default
# outputs, against their sort time (bench/levers-device.sh, part big).
cd .dev && tar xJf libs.tar.xz && cd ..
LV_PARTS=big LV_BIG="4096 8192" bash bench/levers-device.sh
