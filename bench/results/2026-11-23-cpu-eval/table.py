#!/usr/bin/env python3
"""Markdown table of bytes per item and ratios from `cuplas eval --json` files.
usage: table.py LABEL=FILE.json ..."""
import json, sys
orders = ["sorted", "input", "random", "morton"]
print("| data | scheme | codec | sorted | input | random | morton | sorted/input | sorted/random | sorted/morton |")
print("|---|---|---|---|---|---|---|---|---|---|")
for arg in sys.argv[1:]:
    label, path = arg.split("=", 1)
    d = json.load(open(path))
    for c in d["codecs"]:
        b = d["bytes_per_item"]
        r = d["ratios"]
        print(f"| {label} | {d['scheme']} | {c} | " +
              " | ".join(f"{b[o][c]:.3f}" for o in orders) + " | " +
              " | ".join(f"{r[o][c]:.4f}" for o in orders[1:]) + " |")
