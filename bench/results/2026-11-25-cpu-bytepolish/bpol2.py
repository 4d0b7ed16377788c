# bpol2.py IN.h5 OUT.h5 sweeps [wlo] [image|plane] [keephi|any] [whi]: 2x2 polish minimising the avg(L,T)-residual code length
# (-log2 p of the current residual histograms, re-estimated each sweep), SOG planes
import sys, itertools, shutil, numpy as np, h5py
inp, outp, sweeps = sys.argv[1], sys.argv[2], int(sys.argv[3])
wlo = float(sys.argv[4]) if len(sys.argv) > 4 else 1.0
per_plane = len(sys.argv) > 5 and sys.argv[5] == 'plane'
keep_hi = len(sys.argv) > 6 and sys.argv[6] == 'keephi'
whi = float(sys.argv[7]) if len(sys.argv) > 7 else 1.0  # weight of the xyz_hi image's cost
f = h5py.File(inp, "r"); Xs = f["vertex/sorted"][...]; idx = f["vertex/index"][...]
names = [n.decode() if isinstance(n, bytes) else n for n in f["vertex"].attrs["channel_names"]]; f.close()
X = Xs.astype(np.float64); H, W, C = X.shape; ch = {n: i for i, n in enumerate(names)}
def q(cols, bits, lo=None, hi=None):
    v = X[:, :, [ch[c] for c in cols]]
    if lo is None: lo, hi = v.min(), v.max()
    return np.floor(np.clip((v - lo) / (hi - lo), 0, 1) * ((1 << bits) - 1) + 0.5).astype(np.int64)
xyz = q(["x","y","z"], 14)
pl = [xyz & 255, xyz >> 8, q(["f_dc_0","f_dc_1","f_dc_2"], 8, -2, 4), q(["scale_0","scale_1","scale_2"], 6),
      q(["rot_0","rot_1","rot_2","rot_3"], 6), q(["opacity"], 6)]
grp = np.concatenate([np.full(p.shape[2], i) for i, p in enumerate(pl)])  # plane -> image
B = np.concatenate(pl, 2); NP = B.shape[2]
wimg = np.ones(len(pl)); wimg[0] = wlo; wimg[1] = whi
P = 2
Bp = np.zeros((H + 2*P, W + 2*P, NP), np.int64); V = np.zeros((H + 2*P, W + 2*P), bool)
Bp[P:P+H, P:P+W] = B; V[P:P+H, P:P+W] = True
Ip = np.full((H + 2*P, W + 2*P), -1, np.int64); Ip[P:P+H, P:P+W] = idx
def resid(x, L, T, vl, vt):
    # WebP: average2 of L and T; row 0 uses L, column 0 uses T
    pred = np.where((vl & vt)[..., None], (L + T) >> 1, np.where(vl[..., None], L, T))
    return (x - pred) & 255
def tables():
    B = Bp[P:P+H, P:P+W]; vl = V[P:P+H, P-1:P+W-1]; vt = V[P-1:P+H-1, P:P+W]
    r = resid(B, Bp[P:P+H, P-1:P+W-1], Bp[P-1:P+H-1, P:P+W], vl, vt)
    Tab = np.zeros((NP, 256)); bits = 0
    for k in range(NP if per_plane else len(pl)):
        sel = (np.arange(NP) == k) if per_plane else (grp == k)
        h = np.bincount(r[..., sel].ravel(), minlength=256) + 0.5
        p = h / h.sum(); t = -np.log2(p)
        bits += (np.bincount(r[..., sel].ravel(), minlength=256) * t).sum()
        Tab[sel] = t * wimg[grp[k] if per_plane else k]
    return Tab, bits / 8
perms = np.array(list(itertools.permutations(range(4))))
win = [(1,1),(1,2),(2,1),(2,2)]
aff = [(1,1),(1,2),(2,1),(2,2),(1,3),(2,3),(3,1),(3,2)]
Tab, by = tables(); print("start est KB", by / 1000, flush=True)
ar = np.arange(NP)
for sw in range(sweeps):
    moved = 0
    for oy in range(4):
        for ox in range(4):
            ys = np.arange(oy, H - 1, 4) + P - 1; xs = np.arange(ox, W - 1, 4) + P - 1  # patch top-left
            Y, Xx = np.meshgrid(ys, xs, indexing="ij"); Y = Y.ravel(); Xx = Xx.ravel(); n = len(Y)
            patch = np.stack([np.stack([Bp[Y+i, Xx+j] for j in range(4)], 1) for i in range(4)], 1)  # n 4 4 NP
            pv = np.stack([np.stack([V[Y+i, Xx+j] for j in range(4)], 1) for i in range(4)], 1)
            vals = np.stack([patch[:, i, j] for i, j in win], 1)
            costs = np.zeros((n, len(perms)))
            for pi, pm in enumerate(perms):
                pt = patch.copy()
                for k, (i, j) in enumerate(win): pt[:, i, j] = vals[:, pm[k]]
                c = np.zeros(n)
                for i, j in aff:
                    r = resid(pt[:, i, j], pt[:, i, j-1], pt[:, i-1, j], pv[:, i, j-1], pv[:, i-1, j])
                    c += Tab[ar, r].sum(-1) * pv[:, i, j] * (pv[:, i, j-1] | pv[:, i-1, j])
                if keep_hi:  # only arrangements that keep every cell's xyz_hi
                    for k, (i, j) in enumerate(win):
                        c = np.where((vals[:, pm[k], 3:6] == patch[:, i, j, 3:6]).all(-1), c, np.inf)
                costs[:, pi] = c
            best = costs.argmin(1)
            best[costs[np.arange(n), best] > costs[:, 0] - 1e-9] = 0
            moved += (best != 0).sum()
            pa = perms[best]
            oldI = np.stack([Ip[Y+i, Xx+j] for i, j in win], 1)
            for k, (i, j) in enumerate(win):
                Bp[Y+i, Xx+j] = vals[np.arange(n), pa[:, k]]; Ip[Y+i, Xx+j] = oldI[np.arange(n), pa[:, k]]
    Tab, by = tables()
    print("sweep", sw, "moved", moved, "est KB", by / 1000, flush=True)
    if moved == 0: break
newidx = Ip[P:P+H, P:P+W]
inv = np.empty(idx.max() + 1, np.int64); inv[idx.ravel()] = np.arange(H * W)
newX = Xs.reshape(H * W, C)[inv[newidx.ravel()]].reshape(H, W, C)
shutil.copy(inp, outp)
with h5py.File(outp, "r+") as f:
    f["vertex/sorted"][...] = newX; f["vertex/index"][...] = newidx
