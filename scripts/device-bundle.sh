#!/bin/bash
# device-bundle.sh - copy the built binaries and the shared libraries the
# GPU machine lacks (libyaml, cmocka, Debian's HDF5 and its deps) into
# .dev/ (git-ignored) for a `device run` with carry [".dev"].
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf .dev && mkdir -p .dev/lib .dev/bin
for b in cuplas tests/test_gpu tests/test_sort_cpu tests/test_cli bench/bench_sort bench/bench_h5 bench/cmp_outputs "$@"; do
    [ -x "$b" ] && cp "$b" .dev/bin/
done
for b in .dev/bin/*; do
    ldd "$b" | awk '/=>/ {print $3}'
done | sort -u | grep -Ev 'libc\.so|libresolv|libm\.so|libstdc\+\+|libgcc_s|libgomp|ld-linux|libpthread|libdl|librt' |
    while read -r l; do cp -L "$l" .dev/lib/; done
if [ -f ../shared/data/peer-inputs.h5 ]; then cp ../shared/data/peer-inputs.h5 .dev/; fi
du -sh .dev
