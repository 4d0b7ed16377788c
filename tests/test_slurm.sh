#!/bin/bash
# test_slurm.sh - cuplas under a real one-node SLURM cluster (make check).
#
# Starts scripts/slurm-ci.sh (munged + slurmctld + slurmd as root on
# loopback) and drives the sbatch templates: (1) a 4-task array over 12
# grids and a corrupt file, (2) USR1 mid-sort -> exit 75 -> requeue ->
# resume, (3) kill -9 mid-write -> rerun. Every result is compared with a
# plain `cuplas run` (index and sorted, byte for byte). Exit 77 (skip) only
# when SLURM cannot run here, with the reason; the cluster is always
# stopped by pid, also on failure.
set -uo pipefail

SRC=${CUPLAS_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
BIN=${CUPLAS_BIN:-${CUPLAS_BUILDDIR:-$PWD}/cuplas}
T0=$SECONDS

skip() { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "not root: the test cluster runs munged, slurmctld and slurmd as root"
for b in /usr/sbin/munged /usr/sbin/slurmctld /usr/sbin/slurmd sbatch scontrol squeue scancel h5dump; do
    command -v "$b" >/dev/null 2>&1 || skip "$b is missing (scripts/bootstrap.sh test installs slurmctld slurmd slurm-client munge hdf5-tools)"
done
[ -x "$BIN" ] || { echo "FAIL: no cuplas binary at $BIN"; exit 1; }
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")

W=$(mktemp -d /tmp/cuplas-slurm-test.XXXXXX)
export SLURM_CI_DIR=$W/cluster SLURM_CONF=$W/cluster/slurm.conf
export CUPLAS=$BIN                       # read by the sbatch templates
mkdir -p "$SLURM_CI_DIR" "$W/logs"
POLLERS=""
JOBS=""

cleanup() {
    local rc=$?
    for p in $POLLERS; do kill "$p" 2>/dev/null; done
    for j in $JOBS; do scancel "$j" 2>/dev/null; done
    "$SRC/scripts/slurm-ci.sh" down >/dev/null 2>&1
    if [ "$rc" = 0 ] && [ -z "${CUPLAS_TEST_KEEP:-}" ]; then rm -rf "$W"; else echo "test_slurm: kept $W for inspection"; fi
    exit "$rc"
}
trap cleanup EXIT

fail() {
    echo "FAIL: $*"
    for f in "$W"/logs/*; do [ -f "$f" ] && { echo "---- $f (tail)"; tail -n 8 "$f" | cut -c1-240; }; done
    [ -d "$SLURM_CI_DIR/log" ] && tail -n 15 "$SLURM_CI_DIR"/log/slurmctld.log
    exit 1
}
ok() { echo "ok   $* ($((SECONDS - T0)) s)"; }

# poll CMD until it succeeds, at most $1 seconds
until_true() {
    local limit=$1 end
    shift
    end=$((SECONDS + limit))
    until "$@"; do
        [ "$SECONDS" -lt "$end" ] || return 1
        sleep 0.2
    done
}
job_gone() { [ -z "$(squeue -h -j "$1" 2>/dev/null)" ]; }
task_field() { scontrol -o show job "$1" | grep -o "$2=[^ ]*" | head -n 1 | cut -d= -f2; }

# every published (non-temp) output in $1 is complete; prints offenders
incomplete_outputs() {
    local f bad=0
    for f in "$1"/*.h5; do
        [ -e "$f" ] || continue
        if ! h5dump -a /grid/complete "$f" 2>/dev/null | grep -q '(0): 1'; then
            echo "incomplete or unreadable output: $f"
            bad=1
        fi
    done
    return $bad
}
# background watcher: checks $1 until $2 exists, offenders go to $3
watch_outputs() {
    ( while [ ! -e "$2" ]; do incomplete_outputs "$1" >>"$3"; sleep 0.05; done ) &
    POLLERS="$POLLERS $!"
}
temp_files() { find "$1" -maxdepth 1 -name '.*.tmp.*' | wc -l; }

# index and sorted of every output in $1 equal to those in $2, byte for byte
same_outputs() {
    local a=$1 b=$2 f n=0 ds
    for f in "$b"/*.h5; do
        local name
        name=$(basename "$f")
        [ -f "$a/$name" ] || { echo "missing output $a/$name"; return 1; }
        for ds in index sorted; do
            h5dump -b LE -d "/grid/$ds" -o "$W/x.bin" "$a/$name" >/dev/null 2>&1 &&
                h5dump -b LE -d "/grid/$ds" -o "$W/y.bin" "$f" >/dev/null 2>&1 &&
                cmp -s "$W/x.bin" "$W/y.bin" || { echo "differs: $a/$name /grid/$ds"; return 1; }
        done
        n=$((n + 1))
    done
    [ "$n" -gt 0 ] || { echo "no outputs in $b"; return 1; }
    echo "$n outputs identical"
}
config() {   # config FILE DATA_DIR OUT_DIR
    printf 'inputs:\n  - files: "%s/*.h5"\noutput:\n  dir: %s\n  overwrite: skip\nbackend:\n  device: cpu\n' \
        "$2" "$3" >"$1"
}

cd "$W" || exit 1

# ------------------------------------------- the templates fail loudly
for t in cpu gpu1 node requeue; do
    bash -n "$SRC/scripts/cuplas-$t.sbatch" || fail "cuplas-$t.sbatch: syntax"
    if bash "$SRC/scripts/cuplas-$t.sbatch" >"logs/noarg-$t.txt" 2>&1; then
        fail "cuplas-$t.sbatch without a config exited 0"
    fi
    grep -q usage "logs/noarg-$t.txt" || fail "cuplas-$t.sbatch without a config: no usage message"
    bash "$SRC/scripts/cuplas-$t.sbatch" no-such.yaml >"logs/noarg-$t.txt" 2>&1 &&
        fail "cuplas-$t.sbatch with a missing config exited 0"
done
ok "templates: syntax, usage errors"

# ------------------------------------------------------------------ inputs
mkdir -p a/data b/data
for i in $(seq 0 11); do
    s=$((32 + i * 32 / 11))
    "$BIN" gen --size "${s}x${s}" --seed "$i" "a/data/c$(printf %02d "$i").h5" >/dev/null || fail "gen"
done
"$BIN" gen --corrupt --size 32 a/data/bad.h5 >/dev/null || fail "gen --corrupt"
# b: grids big enough (~1-2 s each on one thread) for a signal or a kill to
# land mid-run. Split in two (largest first, to the lighter shard): shard 0
# = big (256^2) then m3 (198^2), shard 1 = m1, m2 and the small ones
"$BIN" gen --size 256x256 --seed 7 b/data/big.h5 >/dev/null || fail "gen"
for s in 1:200 2:199 3:198; do
    "$BIN" gen --size "${s#*:}x${s#*:}" --seed "${s%:*}" "b/data/m${s%:*}.h5" >/dev/null || fail "gen"
done
for i in 0 1 2 3; do "$BIN" gen --size 48x48 --seed $((20 + i)) "b/data/s$i.h5" >/dev/null || fail "gen"; done
config a.yaml a/data a/out
config b.yaml b/data b/out

# the references: plain runs without SLURM, meanwhile the cluster starts
( OMP_NUM_THREADS=1 "$BIN" run a.yaml --no-shard --set output.dir=ref/a --log-format json \
      >logs/ref-a.log 2>&1; echo $? >ref-a.rc
  OMP_NUM_THREADS=1 "$BIN" run b.yaml --no-shard --set output.dir=ref/b --log-format json \
      >logs/ref-b.log 2>&1; echo $? >ref-b.rc ) &
REFS=$!

if ! "$SRC/scripts/slurm-ci.sh" up >logs/slurm-ci-up.log 2>&1; then
    cat logs/slurm-ci-up.log
    skip "the SLURM test cluster did not start here (log above)"
fi
ok "cluster up ($(sinfo -h -o '%N %T %c CPUs'))"
wait "$REFS"
[ "$(cat ref-a.rc)" = 1 ] || fail "reference run a: exit $(cat ref-a.rc), expected 1 (the corrupt file)"
[ "$(cat ref-b.rc)" = 0 ] || fail "reference run b: exit $(cat ref-b.rc)"
ok "reference runs"

# ------------------------------------------------- 1. a 4-task array job
watch_outputs a/out a.stop a.bad
J=$(sbatch --parsable --array=0-3 -c 1 --mem-per-cpu=100M -o "$W/logs/a-%a.out" "$SRC/scripts/cuplas-cpu.sbatch" a.yaml) ||
    fail "sbatch cuplas-cpu.sbatch"
JOBS="$JOBS $J"
until_true 120 job_gone "$J" || fail "array $J did not finish in 120 s"
touch a.stop
ls a/out/cuplas-manifest.*-of-4.json >/dev/null 2>&1 || fail "no manifests"
[ "$(ls a/out/cuplas-manifest.*-of-4.json | wc -l)" = 4 ] || fail "expected 4 manifests: $(ls a/out)"
# every good dataset done exactly once over all manifests
counts=$(grep -h '"status": "done"' a/out/cuplas-manifest.*.json | grep -o '"input": "[^"]*"' | sort | uniq -c)
[ "$(echo "$counts" | wc -l)" = 12 ] || fail "expected 12 datasets done: $counts"
echo "$counts" | awk '$1 != 1 { bad = 1 } END { exit bad }' || fail "a dataset was sorted twice: $counts"
# the corrupt file: in exactly one shard, whose task exited 1; the others 0
bad_man=$(grep -l '"input": "a/data/bad.h5"' a/out/cuplas-manifest.*.json)
[ "$(echo "$bad_man" | wc -l)" = 1 ] || fail "bad.h5 in manifests: $bad_man"
bad_task=$(echo "$bad_man" | sed 's/.*manifest\.\([0-9]*\)-of-4.json/\1/')
for t in 0 1 2 3; do
    want=0:0
    [ "$t" = "$bad_task" ] && want=1:0
    got=$(task_field "${J}_$t" ExitCode)
    [ "$got" = "$want" ] || fail "task $t: ExitCode=$got, expected $want"
done
"$BIN" report a/out --json a-report.json --csv a-report.csv >logs/a-report.txt 2>&1
rc=$?
[ "$rc" = 1 ] || fail "report a: exit $rc, expected 1"
grep -q "12 done, 0 skipped, 1 failed" logs/a-report.txt || fail "report a: $(cat logs/a-report.txt)"
grep -q "bad.h5" logs/a-report.txt || fail "report a does not name bad.h5"
grep -q '"done": 12' a-report.json || fail "report json"
[ "$(wc -l <a-report.csv)" = 14 ] || fail "report csv: $(wc -l <a-report.csv) lines"
same_outputs a/out ref/a || fail "array outputs differ from the plain run"
[ "$(temp_files a/out)" = 0 ] || fail "temp files left in a/out"
[ ! -s a.bad ] || fail "incomplete outputs seen during the run: $(sort -u a.bad)"
ok "1. array: 4 tasks, 12 datasets sorted once, corrupt input -> task $bad_task exit 1, report exit 1, outputs identical"

# --------------------------------------- 2. USR1 mid-sort, requeue, resume
watch_outputs b/out b.stop b.bad
J=$(sbatch --parsable --array=0-1 -c 1 --mem-per-cpu=100M -o "$W/logs/b-%a.out" "$SRC/scripts/cuplas-requeue.sbatch" \
    b.yaml --set backend.device=cpu) || fail "sbatch cuplas-requeue.sbatch"
JOBS="$JOBS $J"
# signal task 0 as soon as its first job (big) is done: m3 is then being sorted
end=$((SECONDS + 60))
until grep -qs '"event":"job_done"' logs/b-0.out; do
    [ "$SECONDS" -lt "$end" ] || fail "task 0 did not finish its first job"
    sleep 0.05
done
scancel --signal=USR1 --batch "${J}_0" || fail "scancel --signal=USR1"
requeued() { [ "$(task_field "${J}_0" JobState)" = PENDING ] && [ "$(task_field "${J}_0" Restarts)" = 1 ]; }
until_true 60 requeued || fail "task 0 was not requeued (state $(task_field "${J}_0" JobState))"
# SLURM holds a requeued job ~120 s (BeginTime): start it now. Not in the
# same second as the requeue, though: slurmd revokes the old run's job
# credential with a one-second timestamp and would refuse the new one
# ("Job credential revoked", the task fails)
sleep 1.2
scontrol update JobId="${J}_0" StartTime=now || fail "scontrol update StartTime=now"
until_true 120 job_gone "$J" || fail "array $J did not finish after the requeue"
touch b.stop
grep -q '"event":"job_interrupted","file":"b/data/m3.h5"' logs/b-0.out ||
    fail "the signal did not land in the sort of m3"
# the rerun did only what was missing: big skipped (its metrics read back), m3 done
grep -q '"input": "b/data/big.h5", .*"status": "skipped"' b/out/cuplas-manifest.0-of-2.json ||
    fail "the rerun did not skip big.h5"
grep -q '"input": "b/data/m3.h5", .*"status": "done"' b/out/cuplas-manifest.0-of-2.json ||
    fail "the rerun did not sort m3.h5"
grep -A1 '"input": "b/data/big.h5"' b/out/cuplas-manifest.0-of-2.json | grep -q '"and_after": [0-9]' ||
    fail "the skipped entry has no metrics"
grep -q 'exited 75' logs/b-0.out || fail "no exit 75 -> requeue in the task log"
[ "$(task_field "${J}_0" ExitCode)" = 0:0 ] || fail "task 0 after the requeue: ExitCode=$(task_field "${J}_0" ExitCode)"
grep -q '"restart_count": "1"' b/out/cuplas-manifest.0-of-2.json || fail "manifest 0 is not the rerun's"
grep -q '"exit_code": 0, "interrupted": false' b/out/cuplas-manifest.0-of-2.json || fail "manifest 0 exit"
"$BIN" report b/out >logs/b-report.txt 2>&1 || fail "report b: exit $? $(cat logs/b-report.txt)"
same_outputs b/out ref/b || fail "requeued outputs differ from the plain run"
[ "$(temp_files b/out)" = 0 ] || fail "temp files left in b/out"
[ ! -s b.bad ] || fail "incomplete outputs seen during the run: $(sort -u b.bad)"
ok "2. USR1 mid-sort -> exit 75 -> scontrol requeue -> rerun skipped the done grid, sorted the rest; outputs identical, nothing partial"

# ----------------------------------------- 3. kill -9 mid-write, then rerun
OMP_NUM_THREADS=1 "$BIN" run b.yaml --no-shard --set output.dir=c/out --log-format json \
    >logs/c-1.log 2>&1 &
pid=$!
caught=""
# spin (no forks) until the first temp file appears: the kill lands mid-write
while kill -0 "$pid" 2>/dev/null; do
    for f in c/out/.*.tmp.*; do
        if [ -e "$f" ]; then kill -9 "$pid"; caught=$f; break 2; fi
    done
done
wait "$pid" 2>/dev/null
if [ -z "$caught" ] || [ "$(temp_files c/out)" = 0 ]; then
    # the write was too quick to catch, or its rename landed between the
    # look and the kill: leave what a kill mid-write leaves
    echo "note: no temp file left by the kill; planting one named after the dead pid $pid"
    mkdir -p c/out
    head -c 4096 ref/b/big.grid.h5 >"c/out/.big.grid.h5.tmp.$pid.AbCdEf"
    caught=c/out/.big.grid.h5.tmp.$pid.AbCdEf
fi
[ "$(temp_files c/out)" -ge 1 ] || fail "expected a stale temp file after kill -9"
incomplete_outputs c/out || fail "kill -9 left an incomplete published output"
OMP_NUM_THREADS=1 "$BIN" run b.yaml --no-shard --set output.dir=c/out --log-format json \
    >logs/c-2.log 2>&1 || fail "rerun after kill -9: exit $?"
grep -q '"event":"stale_temp_removed"' logs/c-2.log || fail "the rerun did not remove the stale temp file"
[ "$(temp_files c/out)" = 0 ] || fail "temp files left in c/out"
incomplete_outputs c/out || fail "incomplete outputs after the rerun"
same_outputs c/out ref/b || fail "outputs after kill -9 + rerun differ from the plain run"
ok "3. kill -9 mid-write ($(basename "$caught")) -> rerun: stale temp removed, outputs identical"

echo "test_slurm: all passed in $((SECONDS - T0)) s"
