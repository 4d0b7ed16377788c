#!/bin/bash
# t10: issue 17's collections A (1024^2 x 16: now `default`'s wide row)
# and B (256^2 x 3, unchanged) with the default config, 0.5.0
# (bench/startup-device.sh part pipe: scripts/pipeline-bench.sh with
# lanes by grid size, deflate 1, fsync; pure-sort figures alongside).
cd .dev && tar xJf libs.tar.xz && cd ..
SD_PARTS=pipe bash bench/startup-device.sh 2>&1 | tail -15
