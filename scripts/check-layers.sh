#!/bin/bash
# check-layers.sh - the layering rule of src/, checked (docs/architecture.md).
#
# The folders of src/ are layers, bottom up:
#   util core cpu cuda sort eval config io pipeline cli
# A file may include headers of its own layer and of the layers below it,
# never above. Only src/io/ includes hdf5.h, and within io/ only the h5_*
# files (which run on the HDF5 thread, or in a one-thread tool) do.
# Prints each violation as FILE: LINE and exits 1 if there is any.
set -euo pipefail
cd "$(dirname "$0")/../src"
layers=(util core cpu cuda sort eval config io pipeline cli)
rank() { local i; for i in "${!layers[@]}"; do [ "${layers[$i]}" = "$1" ] && { echo "$i"; return; }; done; echo -1; }
bad=0
for dir in "${layers[@]}"; do
    mine=$(rank "$dir")
    for f in "$dir"/*; do
        [ -f "$f" ] || continue
        while IFS= read -r line; do
            inc=${line#*\"}; inc=${inc%%\"*}
            case "$inc" in */*) ;; *) continue ;; esac   # cuplas_build.h, same-folder
            theirs=$(rank "${inc%%/*}")
            if [ "$theirs" -lt 0 ] || [ "$theirs" -gt "$mine" ]; then
                echo "$f: includes $inc (layer ${inc%%/*} is above $dir)"; bad=1
            fi
        done < <(grep -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" || true)
        if grep -Eq '#[[:space:]]*include[[:space:]]*[<"]hdf5' "$f"; then
            case "$f" in io/h5_*) ;; *) echo "$f: includes hdf5.h outside src/io/h5_*"; bad=1 ;; esac
        fi
    done
done
[ "$bad" -eq 0 ] && echo "layers: ok (${layers[*]})"
exit "$bad"
