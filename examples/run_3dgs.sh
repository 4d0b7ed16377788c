#!/bin/bash
# run_3dgs.sh - the 3DGS example end to end (run by `make check`): generate
# two scenes, sort them with examples/3dgs.yaml on the CPU, and check that
# the outputs exist, are complete and got smoother.
set -euo pipefail
BIN=${CUPLAS_BUILDDIR:-$PWD}/cuplas
CFG=${CUPLAS_SRCDIR:-$PWD}/examples/3dgs.yaml
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
"$BIN" gen --kind gaussians --size 64x64 --count 2 --seed 1 scenes/scene.h5 >/dev/null
"$BIN" run "$CFG" --set backend.device=cpu --log-format json 2>run.log
n=$(grep -c '"event":"job_done"' run.log)
[ "$n" -eq 2 ] || { echo "expected 2 sorted scenes, got $n"; cat run.log; exit 1; }
python3 - run.log <<'PY'
import json, sys
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e.get("event") == "job_done":
        assert e["and_after"] < 0.7 * e["and_before"], e
        print("%s: AND %.3f -> %.3f" % (e["dataset"], e["and_before"], e["and_after"]))
PY
for f in scenes-sorted/scene.grid_000.h5 scenes-sorted/scene.grid_001.h5; do
    [ -s "$f" ] || { echo "missing $f"; exit 1; }
done
# a rerun skips both (resume)
"$BIN" run "$CFG" --set backend.device=cpu --log-format json 2>rerun.log
[ "$(grep -c '"event":"job_skipped"' rerun.log)" -eq 2 ] || { cat rerun.log; exit 1; }
echo "run_3dgs: ok"
