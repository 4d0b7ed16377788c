#!/usr/bin/env python3
"""presets-table.py - the ablation table of a preset sweep, as Markdown.

    scripts/presets-table.py SWEEP.jsonl > table.md

Reads bench_presets lines (bench/presets_sweep.sh) and prints one row per
label ("group/lever=setting"): for every case its mean AND (and DPQ16 on
the 32x32 image), CPU ms of one sort (one core) and passes; then the AND
and passes relative to the default row of the same case, so that a
lever's gain can be weighed against its cost. Standard library only.
"""
import json
import sys


def short(case):
    if case.startswith("png:"):
        return "32^2 png"
    if case.endswith("/colors_256"):
        return "256^2 peers"
    if case.startswith("colors:"):
        n = case[7:]
        return n + "^2" if "x" not in n else n
    if case.startswith("normal:"):
        h, w, c = case[7:].split("x")
        return "%s^2x%s" % (h, c) if h == w else case[7:]
    return case


def main():
    rows = {}
    order = []
    cases = []
    for line in open(sys.argv[1]):
        line = line.strip()
        if not line.startswith("{"):
            continue
        r = json.loads(line)
        lab = r["label"]
        if lab not in rows:
            rows[lab] = {}
            order.append(lab)
        c = short(r["case"])
        if c not in cases:
            cases.append(c)
        rows[lab][c] = r   # a rerun of the same label and case replaces it
    base = rows.get("levers/default") or rows.get("presets/default") or {}
    head = ["lever / setting"]
    for c in cases:
        head += ["%s AND" % c] + (["DPQ16"] if c == "32^2 png" else []) + ["ms", "passes"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for lab in order:
        cells = [lab]
        for c in cases:
            r = rows[lab].get(c)
            dpq = c == "32^2 png"
            if not r:
                cells += [""] * (4 if dpq else 3)
                continue
            b = base.get(c)
            rel = ""
            if b and lab not in ("levers/default", "presets/default"):
                rel = " (%+.1f%%)" % (100.0 * (r["and"] / b["and"] - 1.0))
            cells.append("%.3f%s" % (r["and"], rel))
            if dpq:
                cells.append("%.4f" % r["dpq16"])
            cells.append("%.0f" % r["cpu_ms"])
            prel = ""
            if b and lab not in ("levers/default", "presets/default"):
                prel = " (x%.2f)" % (r["passes"] / b["passes"])
            cells.append("%.0f%s" % (r["passes"], prel))
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
