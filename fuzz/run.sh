#!/bin/sh
# fuzz/run.sh SRCDIR TARGET SECONDS - one fuzzer of `make fuzz-run`.
#
# Runs TARGET (fuzz/fuzz_NAME) for SECONDS on a copy of its seed corpus
# fuzz/corpus/NAME/ in fuzz/out/NAME/ (the checked-in corpus never grows),
# with fuzz/NAME.options added to libFuzzer's flags. It runs in fork mode
# and goes on past a finding, so that a crash inside libhdf5 (HDF5 1.10.8
# crashes on some damaged metadata) does not end the search for cuplas's
# own bugs in its first seconds. Every finding (crash-*, timeout-*, oom-*,
# leak-*) is then run again alone and triaged (fuzz/triage.sh):
#  - inside a call into libhdf5: a note;
#  - not reproduced when run alone (a timeout near the limit): a note;
#  - anything else: the target fails, its log beside the finding.
# Exit status: 0, or 1 when a target failed.
srcdir=$1 t=$2 secs=$3
n=${t#fuzz/fuzz_}
out=fuzz/out/$n
flags="-max_len=65536 -timeout=10 -rss_limit_mb=2048 $(cat "$srcdir/fuzz/$n.options" 2>/dev/null)"

rm -rf "$out" && mkdir -p "$out/corpus" || exit 1
cp "$srcdir/fuzz/corpus/$n/"* "$out/corpus/" 2>/dev/null
echo "== $t: $secs s"
# $flags is a list of flags: split on purpose
# shellcheck disable=SC2086
# In fork mode libFuzzer can exit 1 after a job crashed, even with
# -ignore_crashes (seen when the crash came as its time ran out): a finding
# is triaged below, so only an exit without one (or without libFuzzer's
# closing "INFO: exiting") is libFuzzer's own failure.
if ! (cd "$out" && ASAN_OPTIONS=detect_leaks=1 "../../../$t" -fork=1 -ignore_crashes=1 \
        -ignore_timeouts=1 -ignore_ooms=1 -max_total_time="$secs" $flags corpus > fuzz.log 2>&1); then
    if ! ls "$out"/crash-* "$out"/timeout-* "$out"/oom-* "$out"/leak-* > /dev/null 2>&1 ||
       ! grep -q '^INFO: exiting: ' "$out/fuzz.log"; then
        echo "FAIL $t: libFuzzer itself failed: $out/fuzz.log"
        tail -5 "$out/fuzz.log"
        exit 1
    fi
fi
grep -E '^#[0-9]+: ' "$out/fuzz.log" | tail -1

rc=0 found=0 hdf5=0 gone=0
for a in "$out"/crash-* "$out"/timeout-* "$out"/oom-* "$out"/leak-*; do
    [ -f "$a" ] || continue
    found=$((found + 1))
    f=$(basename "$a")
    # shellcheck disable=SC2086
    (cd "$out" && ASAN_OPTIONS=detect_leaks=1 "../../../$t" $flags "$f" > "$f.log" 2>&1)
    st=$?
    who=$(sh "$srcdir/fuzz/triage.sh" "$a.log")
    if [ $st -eq 0 ]; then
        gone=$((gone + 1))
        echo "note $t: $a did not reproduce when run alone"
    elif [ "$who" = hdf5 ]; then
        hdf5=$((hdf5 + 1))
    else
        echo "FAIL $t: $a (exit $st): $a.log"
        grep -m5 -E "ERROR|SUMMARY|runtime error" "$a.log"
        rc=1
    fi
done
[ $hdf5 -gt 0 ] && echo "note $t: $hdf5 finding(s) inside a call into libhdf5 (HDF5 bugs on damaged files, not cuplas's): $out/"
[ $rc -eq 0 ] && echo "ok   $t ($found finding(s): $hdf5 in libhdf5, $gone not reproduced)"
exit $rc
