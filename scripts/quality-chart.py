#!/usr/bin/env python3
"""quality-chart.py - AND and DPQ16 against time: cuplas's presets and the peers.

    scripts/quality-chart.py SWEEP.jsonl [MORE.jsonl...] -o chart.png

Needs matplotlib (python3-matplotlib; a tool for the bench records, not a
build or CI dependency).

Reads bench_presets lines (bench/presets_sweep.sh): the rows labelled
"presets/NAME" (and any "1024/NAME" rows of a 1024^2 run). Panels:
  - AND against time at 256^2 and 1024^2 x 3 (the peers' colors_256 and
    colors_1024): PLAS, CUPLAS and FLAS as measured in
    shared/reference/peers.md (H200; FLAS on one CPU core), cuplas's presets
    at an H200 time ESTIMATED from their passes: passes x (default's H200
    ms / default's passes) at that size, the default's ms from peers.md
    2026-11-23, its passes from the jsonl (a size gets a panel when the
    jsonl has its default row: "presets/default" or "512/default" ...).
    The estimate is marked; the GPU run replaces it with measured times.
  - DPQ16 on the 32x32 colours image against CPU time on one core: FLAS
    (peers.md) and the presets (bench_presets CPU ms, one thread).
"""
import argparse
import json

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

# shared/reference/peers.md, 2026-11-21/23, one H200 (FLAS: one CPU core)
PEERS_AND = {
    "256": [("PLAS", 9660.0, 7.847), ("CUPLAS", 54.1, 10.550),
            ("FLAS defaults (CPU)", 950.0, 8.692), ("FLAS 49 cand. (CPU)", 3100.0, 7.838)],
    "512": [("PLAS", 11650.0, 4.965), ("CUPLAS", 69.5, 6.743),
            ("FLAS defaults (CPU)", 5400.0, 5.686), ("FLAS 49 cand. (CPU)", 15100.0, 5.015)],
    "1024": [("PLAS", 28920.0, 3.141), ("CUPLAS", 153.2, 4.285)],
}
PEERS_DPQ = [("FLAS defaults", 7.0, 0.935), ("FLAS 49 cand.", 24.0, 0.950),
             ("FLAS 49 cand., decay 0.99", 145.0, 0.954)]
PUBLISHED_DPQ = 0.954   # LAS, GradSort (peers.md)
# cuplas default on the H200 at the same inputs, ms (peers.md 2026-11-23);
# its passes come from the jsonl's default row of that size
DEFAULT_H200_MS = {"256": 7.09, "512": 11.84, "1024": 32.43}
TARGETS = {"1024": [("fast target", 15.0, 4.285), ("best target", 2000.0, 2.984)]}


def load(paths):
    rows = []
    for p in paths:
        for line in open(p):
            line = line.strip()
            if line.startswith("{"):
                rows.append(json.loads(line))
    return rows


def size_of(case):
    if case.endswith("/colors_256"):
        return "256"
    if case.endswith("/colors_512"):
        return "512"
    if case.endswith("/colors_1024"):
        return "1024"
    if case.startswith("png:"):
        return "png"
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("jsonl", nargs="+")
    ap.add_argument("-o", "--out", default="quality-chart.png")
    a = ap.parse_args()
    rows = [r for r in load(a.jsonl) if "/" in r["label"]
            and r["label"].split("/")[0] in ("presets", "512", "1024")]
    presets = {}
    for r in rows:
        s = size_of(r["case"])
        if s:
            presets[(s, r["label"].split("/")[1])] = r   # last line wins
    sizes = [z for z in ("256", "512", "1024") if (z, "default") in presets]
    fig, ax = plt.subplots(1, len(sizes) + 1, figsize=(5.4 * (len(sizes) + 1), 5))
    for k, size in enumerate(sizes):
        axk = ax[k]
        for name, ms, v in PEERS_AND[size]:
            axk.scatter(ms, v, marker="s", s=50)
            axk.annotate(name, (ms, v), textcoords="offset points", xytext=(5, 4), fontsize=8)
        for name, ms, v in TARGETS.get(size, []):
            axk.scatter(ms, v, marker="x", color="gray")
            axk.annotate(name, (ms, v), textcoords="offset points", xytext=(5, -10),
                         fontsize=7, color="gray")
        dms, dpasses = DEFAULT_H200_MS[size], presets[(size, "default")]["passes"]
        for (s, name), r in sorted(presets.items()):
            if s != size:
                continue
            est = r["passes"] * dms / dpasses
            axk.scatter(est, r["and"], marker="o", s=60, color="C3")
            axk.annotate("cuplas %s (est.)" % name, (est, r["and"]), textcoords="offset points",
                         xytext=(5, 4), fontsize=8, color="C3")
        axk.set_xscale("log")
        axk.set_xlabel("time, ms (H200; cuplas: estimated from passes)")
        axk.set_ylabel("AND (lower is better)")
        axk.set_title("%s^2 x 3 random colours (peers' input)" % size)
        axk.grid(True, which="both", alpha=0.3)
    axd = ax[len(sizes)]
    for name, ms, v in PEERS_DPQ:
        axd.scatter(ms, v, marker="s", s=50)
        axd.annotate(name, (ms, v), textcoords="offset points", xytext=(5, 4), fontsize=8)
    axd.axhline(PUBLISHED_DPQ, color="gray", ls="--", lw=1)
    axd.annotate("best published (LAS, GradSort)", (1, PUBLISHED_DPQ), fontsize=7, color="gray",
                 xytext=(0, 3), textcoords="offset points")
    axd.axhline(0.955, color="C3", ls=":", lw=1)
    for (s, name), r in sorted(presets.items()):
        if s == "png":
            axd.scatter(r["cpu_ms"], r["dpq16"], marker="o", s=60, color="C3")
            axd.annotate("cuplas %s" % name, (r["cpu_ms"], r["dpq16"]),
                         textcoords="offset points", xytext=(5, -10), fontsize=8, color="C3")
    axd.set_xscale("log")
    axd.set_xlabel("CPU time, ms (one core)")
    axd.set_ylabel("DPQ16 (higher is better), mean of seeds 1-5")
    axd.set_title("32x32 colours (colors_1024_random.png)")
    axd.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(a.out, dpi=110)


if __name__ == "__main__":
    main()
