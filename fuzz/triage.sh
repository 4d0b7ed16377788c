#!/bin/sh
# fuzz/triage.sh LOG - whose fault is the finding in a libFuzzer log?
#
# Prints "hdf5" when the innermost frames of the finding's stack, up to the
# first frame with a cuplas source line, include a libhdf5 frame: the crash
# or the hang (a timeout's stack is the main thread's when the alarm fired)
# happened inside a call into HDF5, as HDF5 1.10.8 does on some damaged
# metadata. Prints "cuplas" otherwise, and "none" when the log holds no
# stack. Frames without a source line in the fuzzer binary (libFuzzer's
# and the sanitizers' own) and in libc are skipped: they are neither side.
# Why not only the innermost frame: HDF5 reaches zlib, libaec or libc for
# its filters and copies, and a hang there is still HDF5's.
log=$1
sed -n '/ERROR: /,$p' "$log" | grep -E '^ +#[0-9]+ ' |
    grep -vE '/fuzz/fuzz_[a-z0-9_]+\+0x|libc\.so|sysdeps|nptl|raise\.c|abort\.c' |
    awk 'BEGIN { who = "none" }
         /\/(src|fuzz)\/[a-z0-9_\/]+\.c:[0-9]+/ { if (who == "none") who = "cuplas"; exit }
         /libhdf5/ { who = "hdf5"; exit }
         { if (who == "none") who = "cuplas" }
         END { print who }'
