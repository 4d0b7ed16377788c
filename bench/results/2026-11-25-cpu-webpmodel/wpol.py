# wpol.py IN.h5 IMGDIR OUT.h5 sweeps: 2x2 polish of the sorted grid minimising a model of WebP lossless's
# code length: each 16x16 tile of each image codes with its best of the 14 predictors, residuals cost
# -log2 p under image-wide per-channel histograms; modes and histograms re-estimated each sweep.
import sys, itertools, shutil, numpy as np, h5py
from PIL import Image
import wpm
inp, imgdir, outp, sweeps = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
IM = ["xyz_lo", "xyz_hi", "f_dc", "scale", "rot", "opacity"]
GREEN = {"f_dc"}
ims = []
for n in IM:
    a = np.array(Image.open(f"{imgdir}/sorted/{n}.png")).astype(np.int64)
    if a.ndim == 2: a = a[..., None]
    if n in GREEN: a = a.copy(); a[..., 0] = (a[..., 0] - a[..., 1]) & 255; a[..., 2] = (a[..., 2] - a[..., 1]) & 255
    ims.append(a)
grp = np.concatenate([np.full(a.shape[2], i) for i, a in enumerate(ims)])
B = np.concatenate(ims, 2); H, W, NP = B.shape; NI = len(IM)
f = h5py.File(inp, "r"); idx = f["vertex/index"][...]; Xs = f["vertex/sorted"][...]; f.close()
I = idx.copy()
import os; TILE = int(os.environ.get("TILE", "16")); tx = (W + TILE - 1) // TILE
def model():
    modes = np.zeros((NI, (H + TILE - 1) // TILE * tx), np.int64); Tab = np.zeros((NP, 256)); tot = 0
    for g in range(NI):
        sel = grp == g; A = B[..., sel]
        bits, md = wpm.cost(A, tile=TILE, ret_modes=True); modes[g] = md; tot += bits
        R = (A - wpm.preds(A)[md[(np.arange(H)[:, None] // TILE) * tx + np.arange(W)[None] // TILE], np.arange(H)[:, None], np.arange(W)[None]]) & 255
        for k, c in enumerate(np.where(sel)[0]):
            h = np.bincount(R[..., k].ravel(), minlength=256) + 0.1; Tab[c] = -np.log2(h / h.sum())
    return modes, Tab, tot
def av(a, b): return (a + b) >> 1
def pred_sel(X, L, T, TL, TR, M):
    """prediction of each plane under mode M (n, NP); Select sums over each image's channels"""
    dL = np.abs(T - TL); dT = np.abs(L - TL)
    sL = np.zeros_like(dL); sT = np.zeros_like(dT)
    for g in range(NI):
        sel = grp == g; sL[:, sel] = dL[:, sel].sum(1, keepdims=True); sT[:, sel] = dT[:, sel].sum(1, keepdims=True)
    a = av(L, T)
    P = np.stack([np.zeros_like(L), L, T, TR, TL, av(av(L, TR), T), av(L, TL), a, av(TL, T), av(T, TR),
                  av(av(L, TL), av(T, TR)), np.where(sL < sT, L, T), np.clip(L + T - TL, 0, 255),
                  np.clip(a + (a - TL) // 2, 0, 255)])
    return np.take_along_axis(P, M[None], 0)[0]
perms = np.array(list(itertools.permutations(range(4))))
win = [(1, 2), (1, 3), (2, 2), (2, 3)]
aff = [(1, 2), (1, 3), (2, 2), (2, 3), (1, 4), (2, 4), (2, 1), (3, 1), (3, 2), (3, 3), (3, 4)]
ar = np.arange(NP)
modes, Tab, tot = model(); print("start model KB", tot / 1000, flush=True)
for sw in range(sweeps):
    moved = 0
    for oy in range(4):
        for ox in range(4):
            ys = np.arange(1 + oy, H - 2, 4); xs = np.arange(2 + ox, W - 3, 4)  # window top-left
            Y, X0 = np.meshgrid(ys, xs, indexing="ij"); Y = Y.ravel(); X0 = X0.ravel(); n = len(Y)
            py, px = Y - 1, X0 - 2  # patch origin
            patch = np.stack([np.stack([B[py + i, px + j] for j in range(6)], 1) for i in range(4)], 1)  # n 4 6 NP
            # each affected pixel's modes (n, NP)
            Ma = {}
            for (i, j) in aff:
                t = ((py + i) // TILE) * tx + (px + j) // TILE
                Ma[(i, j)] = modes[grp[None, :], t[:, None]]
            vals = np.stack([patch[:, i, j] for i, j in win], 1)
            costs = np.zeros((n, len(perms)))
            for pi, pm in enumerate(perms):
                pt = patch.copy()
                for k, (i, j) in enumerate(win): pt[:, i, j] = vals[:, pm[k]]
                c = np.zeros(n)
                for (i, j) in aff:
                    pr = pred_sel(pt[:, i, j], pt[:, i, j - 1], pt[:, i - 1, j], pt[:, i - 1, j - 1], pt[:, i - 1, j + 1], Ma[(i, j)])
                    c += Tab[ar, (pt[:, i, j] - pr) & 255].sum(-1)
                costs[:, pi] = c
            best = costs.argmin(1)
            best[costs[np.arange(n), best] > costs[:, 0] - 1e-9] = 0
            moved += (best != 0).sum()
            pa = perms[best]
            oldI = np.stack([I[Y + i - 1, X0 + j - 2] for i, j in win], 1)
            for k, (i, j) in enumerate(win):
                B[Y + i - 1, X0 + j - 2] = vals[np.arange(n), pa[:, k]]; I[Y + i - 1, X0 + j - 2] = oldI[np.arange(n), pa[:, k]]
    modes, Tab, tot = model()
    print("sweep", sw, "moved", moved, "model KB", tot / 1000, flush=True)
    if moved == 0: break
inv = np.empty(idx.max() + 1, np.int64); inv[idx.ravel()] = np.arange(H * W)
C = Xs.shape[2]
newX = Xs.reshape(H * W, C)[inv[I.ravel()]].reshape(H, W, C)
shutil.copy(inp, outp)
with h5py.File(outp, "r+") as f:
    f["vertex/sorted"][...] = newX; f["vertex/index"][...] = I
