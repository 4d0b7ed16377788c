#!/usr/bin/env python3
"""quality-chart.py - AND and DPQ16 against time: cuplas's presets and the peers.

    scripts/quality-chart.py SWEEP.jsonl [MORE.jsonl...] [--gpu GPU.jsonl] -o chart.png

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
  - With --gpu: bench_sort lines of a GPU run tagged with "preset" (as
    scripts/gpu-features.sh's presets part writes them). Every (grid, C) case in it gets a
    panel with the presets at their MEASURED device time (CUDA events,
    median of 5) beside the peers (C = 3 at 256^2..2048^2 on the peers'
    colors_N; C = 16 normals at 1024^2 and 2048^2); these replace the
    estimated panels.
  - DPQ16 on the 32x32 colours image against CPU time on one core: FLAS
    (peers.md) and the presets (bench_presets CPU ms, one thread).
"""
import argparse
import json
import re

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
    "2048": [("PLAS", 118000.0, 1.979), ("CUPLAS", 491.6, 2.721)],
    "1024x16": [("PLAS", 73600.0, 2.899), ("CUPLAS", 2248.0, 3.270)],
    "2048x16": [("CUPLAS", 9598.0, 3.052)],
}
PEERS_DPQ = [("FLAS defaults", 7.0, 0.935), ("FLAS 49 cand.", 24.0, 0.950),
             ("FLAS 49 cand., decay 0.99", 145.0, 0.954)]
PUBLISHED_DPQ = 0.954   # LAS, GradSort (peers.md)
# cuplas default on the H200 at the same inputs, ms (peers.md 2026-11-23);
# its passes come from the jsonl's default row of that size
DEFAULT_H200_MS = {"256": 7.09, "512": 11.84, "1024": 32.43}
TARGETS = {"1024": [("fast target", 15.0, 4.285), ("default target", 100.0, 3.141),
                    ("best target", 2000.0, 2.984)],
           "2048": [("default target", 400.0, 1.979)],
           "1024x16": [("default target", 150.0, 2.899)]}


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


def gpu_key(case, C):
    """Panel key of a bench_sort case: "1024" (C = 3) or "1024x16"."""
    m = re.search(r"colors_(\d+)$", case) or re.match(r"colors:(\d+)x", case)
    if m and C == 3:
        return m.group(1)
    m = re.match(r"normal:(\d+)x\d+x(\d+)", case)
    return "%sx%s" % (m.group(1), m.group(2)) if m else None


def gpu_panel(axk, key, rows):
    for name, ms, v in PEERS_AND.get(key, []):
        axk.scatter(ms, v, marker="s", s=50)
        axk.annotate(name, (ms, v), textcoords="offset points", xytext=(5, 4), fontsize=8)
    for name, ms, v in TARGETS.get(key, []):
        axk.scatter(ms, v, marker="x", color="gray")
        axk.annotate(name, (ms, v), textcoords="offset points", xytext=(5, -10),
                     fontsize=7, color="gray")
    for r in rows:
        axk.scatter(r["device_ms"], r["and_after"], marker="o", s=60, color="C3")
        axk.annotate("cuplas %s" % r.get("label") or r.get("preset"), (r["device_ms"], r["and_after"]),
                     textcoords="offset points", xytext=(5, 4), fontsize=8, color="C3")
    n, _, c = key.partition("x")
    axk.set_xscale("log")
    axk.set_xlabel("time, ms (GPU; cuplas: CUDA events, median of 5)")
    axk.set_ylabel("AND (lower is better)")
    axk.set_title("%s^2 x %s %s" % (n, c or "3", "normals" if c else "random colours"))
    axk.grid(True, which="both", alpha=0.3)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("jsonl", nargs="+")
    ap.add_argument("-o", "--out", default="quality-chart.png")
    ap.add_argument("--gpu", help="bench_sort JSON lines of a GPU run, tagged with preset")
    a = ap.parse_args()
    gpu = {}
    for r in load([a.gpu]) if a.gpu else []:
        k = gpu_key(r.get("case", ""), r.get("C", 0))
        if k and "device_ms" in r:
            gpu.setdefault(k, []).append(r)
    rows = [r for r in load(a.jsonl) if "/" in r["label"]
            and r["label"].split("/")[0] in ("presets", "512", "1024")]
    presets = {}
    for r in rows:
        s = size_of(r["case"])
        if s:
            presets[(s, r["label"].split("/")[1])] = r   # last line wins
    sizes = [z for z in ("256", "512", "1024") if (z, "default") in presets and z not in gpu]
    keys = sorted(gpu, key=lambda k: ("x" in k, int(k.split("x")[0])))
    npan = len(keys) + len(sizes) + 1
    cols = min(npan, 4)
    fig, axs = plt.subplots((npan + cols - 1) // cols, cols, figsize=(5.4 * cols, 5 * ((npan + cols - 1) // cols)),
                            squeeze=False)
    ax = list(axs.flat)
    for k, key in enumerate(keys):
        gpu_panel(ax[k], key, gpu[key])
    ax = ax[len(keys):]
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
    for extra in ax[len(sizes) + 1:]:
        extra.axis("off")
    fig.tight_layout()
    fig.savefig(a.out, dpi=110)


if __name__ == "__main__":
    main()
