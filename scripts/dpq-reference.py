#!/usr/bin/env python3
"""dpq-reference.py - reference values for tests/test_eval_quality.c.

Computes DPQ_p with the LAS/FLAS authors' code (PyPI vc-flas 0.1.7,
vc_flas.metrics.distance_preservation_quality, wrap=False) on the grids the
test builds, and VAD with PLAS's formula (plas/vad.py: mean of the population
variances of |diff| along x and along y, all channels pooled). Run once:

    python3 -m venv /tmp/venv-flas
    /tmp/venv-flas/bin/pip install vc-flas numpy pillow
    /tmp/venv-flas/bin/python scripts/dpq-reference.py /work/shared/data/colors_1024_random.png

and paste the printed values into the test. The synthetic grids use the
formula of formula_grid() here and in the test (integers / 8, exact).
"""
import sys

import numpy as np
from PIL import Image
from vc_flas.metrics import distance_preservation_quality as dpq


def formula_grid(h, w, c, mul):
    i = np.arange(h * w * c).reshape(h, w, c)
    return ((i * mul + 5) % 23).astype(np.float64) / 8.0


def vad(g):
    dx = np.abs(np.diff(g, axis=1))
    dy = np.abs(np.diff(g, axis=0))
    return (np.var(dx) + np.var(dy)) / 2


def show(name, g, valid=None, p=16):
    print(f"{name}: dpq{p} = {dpq(g, valid=valid, wrap=False, p=p):.17g}", end="")
    if valid is None:
        print(f"  vad = {vad(g):.17g}", end="")
    print()


g = formula_grid(2, 2, 1, 7)
show("2x2x1 mul7", g)
show("2x2x1 mul7 p2", g, p=2)
show("3x3x2 mul7", formula_grid(3, 3, 2, 7))
show("4x6x3 mul11", formula_grid(4, 6, 3, 11))
valid = np.ones((4, 6), dtype=bool)
valid[0, 1] = valid[2, 3] = valid[3, 5] = False
show("4x6x3 mul11 holes (0,1) (2,3) (3,5)", formula_grid(4, 6, 3, 11), valid=valid)
sparse = np.zeros((1, 200), dtype=bool)
sparse[0, [0, 3, 17, 40, 41, 90, 120, 150, 151, 199]] = True
show("1x200x2 mul13, 10 filled cells", formula_grid(1, 200, 2, 13), valid=sparse)
if len(sys.argv) > 1:
    img = np.asarray(Image.open(sys.argv[1]).convert("RGB")).astype(np.float64)
    show("colors_1024_random (file order)", img)
    show("colors_1024_random rows sorted by R+G+B",
         img.reshape(-1, 3)[np.argsort(img.reshape(-1, 3).sum(1), kind="stable")].reshape(32, 32, 3))
