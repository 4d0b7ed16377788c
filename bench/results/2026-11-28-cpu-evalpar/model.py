#!/usr/bin/env python3
"""Makespan of the encodes on T threads, list-scheduled in task order as
`schedule(dynamic, 1)` hands them out: one task per (order, codec) before,
per (order, codec, image) after. Task times: image-seconds.json, each
image's encode (and write) on one thread, from the --images files' mtimes."""
import json, sys

rows = json.load(open(sys.argv[1] if len(sys.argv) > 1 else "image-seconds.json"))
orders = ["sorted", "input", "random", "morton"]

def makespan(tasks, threads):
    free = [0.0] * threads
    for d in tasks:
        i = free.index(min(free))
        free[i] += d
    return max(free)

for sel in (orders, ["sorted", "morton"]):
    per_order = [sum(r[2] for r in rows if r[0] == o) for o in orders if o in sel]
    per_image = [r[2] for r in rows if r[0] in sel]
    print(",".join(sel), "CPU %.1f s, largest image %.1f s" % (sum(per_image), max(per_image)))
    for t in (1, 2, 4, 8, 16):
        print("  %2d threads: per (order, codec) %6.1f s   per image %6.1f s"
              % (t, makespan(per_order, t), makespan(per_image, t)))
