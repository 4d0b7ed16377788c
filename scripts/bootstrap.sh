#!/bin/bash
# bootstrap.sh - the README's two commands, on a fresh Debian 12 / Ubuntu
# 24.04 machine as root:
#   scripts/bootstrap.sh demo   install, build, generate the demo collection,
#                               sort it with configs/demo.yaml (GPU if any)
#   scripts/bootstrap.sh test   install, build, run the whole test suite and
#                               print every cmocka log and "N passed, N failed"
# CUDA is used when nvcc is found (PATH or /usr/local/cuda); else CPU only.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-}
case "$mode" in demo|test) ;; *) echo "usage: $0 demo|test" >&2; exit 2 ;; esac

install_packages() {
    local pkgs="autoconf automake libtool make gcc pkg-config libyaml-dev zlib1g-dev libdeflate-dev
                libhdf5-dev hdf5-tools libcmocka-dev libpng-dev libwebp-dev libjxl-dev"
    # test: a one-node SLURM cluster (tests/test_slurm.sh), clang for the
    # fuzzers, chromium for tests/test_report_html (a real headless browser)
    [ "$mode" = test ] && pkgs="$pkgs slurmctld slurmd slurm-client munge procps clang chromium"
    local missing=""
    for p in $pkgs; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
    if [ -n "$missing" ]; then
        echo "== installing:$missing"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
    fi
}

build() {
    echo "== building"
    autoreconf -fi >/dev/null
    ./configure -q
    make -j"$(nproc)" >/dev/null
    make -j"$(nproc)" check TESTS= >/dev/null   # build the test programs too
}

run_tests() {
    echo "== make check"
    local rc=0
    make -j"$(nproc)" check >/dev/null 2>&1 || rc=$?
    for log in tests/*.log examples/*.log; do
        [ "$log" = tests/test-suite.log ] && continue
        echo "---- $log"; cat "$log"
    done
    local pass fail skip
    # (grep exits 1 on no match: count with awk so pipefail stays quiet)
    pass=$(cat tests/*.trs examples/*.trs 2>/dev/null | awk '/^:test-result: PASS/ {n++} END {print n+0}')
    fail=$(cat tests/*.trs examples/*.trs 2>/dev/null | awk '/^:test-result: (FAIL|ERROR|XPASS)/ {n++} END {print n+0}')
    skip=$(cat tests/*.trs examples/*.trs 2>/dev/null | awk '/^:test-result: SKIP/ {n++} END {print n+0}')
    echo "programs: $pass passed, $fail failed, $skip skipped"
    # every cmocka test case, from each program's closing summary; a
    # program that died before its summary counts as one failure
    local cp cf
    cp=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test(s)\./\1/p' tests/*.log | awk '{s+=$1} END {print s+0}')
    cf=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test(s), listed below:/\1/p' tests/*.log | awk '{s+=$1} END {print s+0}')
    [ "$rc" -ne 0 ] && [ "$cf" -eq 0 ] && cf=$fail
    cf=$((cf + FUZZ_FAILED))
    [ "$FUZZ_FAILED" -eq 0 ] || rc=1
    echo "$cp passed, $cf failed"
    return $rc
}

install_packages
build
if [ "$mode" = test ]; then
    # a short fuzz run of every target first (FUZZ_SECONDS each); a finding
    # counts as one failed test in the closing line
    echo "== make fuzz-run"
    FUZZ_FAILED=0
    { make -j"$(nproc)" fuzz >/dev/null && make fuzz-run FUZZ_SECONDS="${FUZZ_SECONDS:-20}"; } || FUZZ_FAILED=1
    run_tests
else
    rm -rf demo && ./cuplas gen --demo demo/data
    ./cuplas run configs/demo.yaml --log-format text
    echo "== results: $(pwd)/demo/out"
    ls -l demo/out
fi
