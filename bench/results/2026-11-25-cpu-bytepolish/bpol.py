# bpol.py IN.h5 OUT.h5 [sweeps] [mode]: byte-cost polish prototype (2x2 windows, 24 perms)
import sys, itertools, shutil, numpy as np, h5py
inp, outp = sys.argv[1], sys.argv[2]
sweeps = int(sys.argv[3]) if len(sys.argv) > 3 else 8
mode = sys.argv[4] if len(sys.argv) > 4 else "log"
f = h5py.File(inp, "r"); g = f["vertex"]
X = g["sorted"][...].astype(np.float64); idx = g["index"][...]
names = [n.decode() if isinstance(n, bytes) else n for n in g.attrs["channel_names"]]
f.close()
H, W, C = X.shape
ch = {n: i for i, n in enumerate(names)}
def q(cols, bits, lo=None, hi=None):
    v = X[:, :, [ch[c] for c in cols]]
    if lo is None: lo, hi = v.min(), v.max()
    t = np.clip((v - lo) / (hi - lo), 0, 1)
    return np.floor(t * ((1 << bits) - 1) + 0.5).astype(np.int64)
xyz = q(["x","y","z"], 14)
planes = [xyz & 255, xyz >> 8, q(["f_dc_0","f_dc_1","f_dc_2"], 8, -2, 4),
          q(["scale_0","scale_1","scale_2"], 6), q(["rot_0","rot_1","rot_2","rot_3"], 6), q(["opacity"], 6)]
B = np.concatenate(planes, axis=2)  # H W 17
NP = B.shape[2]
wrap = np.zeros(NP, bool); wrap[0:3] = True
d = np.arange(256)
if mode == "log": T = np.log2(1 + d)
elif mode == "sqrt": T = np.sqrt(d)
elif mode == "l1": T = d.astype(float)
elif mode == "nz": T = (d > 0) * 1.0 + np.log2(1 + d)
TT = np.tile(T, (NP, 1))
wl = float(sys.argv[5]) if len(sys.argv) > 5 else 1.0
TT[0:3] *= wl
def ecost(a, b):  # a, b: (..., NP) -> (...)
    dd = np.abs(a - b)
    dd[..., wrap] = np.minimum(dd[..., wrap], 256 - dd[..., wrap])
    return TT[np.arange(NP), dd].sum(-1)
def total():
    return ecost(B[:, 1:], B[:, :-1]).sum() + ecost(B[1:], B[:-1]).sum()
P = 2
Bp = np.zeros((H + 2*P, W + 2*P, NP), np.int64); V = np.zeros((H + 2*P, W + 2*P), bool)
Bp[P:P+H, P:P+W] = B; V[P:P+H, P:P+W] = True
Ip = np.full((H + 2*P, W + 2*P), -1, np.int64); Ip[P:P+H, P:P+W] = idx
perms = list(itertools.permutations(range(4)))
cells = [(0,0),(0,1),(1,0),(1,1)]
ext = {0: [(-1,0),(0,-1)], 1: [(-1,1),(0,2)], 2: [(1,-1),(2,0)], 3: [(1,2),(2,1)]}
print("start", total(), flush=True)
for sw in range(sweeps):
    moved = 0
    for ty in range(2):
        for tx in range(2):
            for col in range(4):
                oy = ty + 2 * (col >> 1); ox = tx + 2 * (col & 1)
                ys = np.arange(oy, H - 1, 4) + P; xs = np.arange(ox, W - 1, 4) + P
                Y, Xx = np.meshgrid(ys, xs, indexing="ij"); Y = Y.ravel(); Xx = Xx.ravel()
                vals = np.stack([Bp[Y+dy, Xx+dx] for dy, dx in cells], 1)  # n 4 NP
                E = np.zeros((len(Y), 4, 4))
                for k in range(4):
                    for dy, dx in ext[k]:
                        nb = Bp[Y+dy, Xx+dx]; ok = V[Y+dy, Xx+dx]
                        for v in range(4):
                            E[:, k, v] += ecost(vals[:, v], nb) * ok
                Pc = np.zeros((len(Y), 4, 4))
                for a in range(4):
                    for b in range(a+1, 4):
                        c = ecost(vals[:, a], vals[:, b]); Pc[:, a, b] = c; Pc[:, b, a] = c
                costs = np.stack([E[:, 0, p[0]] + E[:, 1, p[1]] + E[:, 2, p[2]] + E[:, 3, p[3]]
                                  + Pc[:, p[0], p[1]] + Pc[:, p[2], p[3]] + Pc[:, p[0], p[2]] + Pc[:, p[1], p[3]]
                                  for p in perms], 1)
                best = costs.argmin(1)
                best[costs[np.arange(len(Y)), best] > costs[:, 0] - 1e-9] = 0
                ch_ = best != 0; moved += ch_.sum()
                pa = np.array(perms)[best]  # n 4
                oldI = np.stack([Ip[Y+dy, Xx+dx] for dy, dx in cells], 1)
                for k, (dy, dx) in enumerate(cells):
                    Bp[Y+dy, Xx+dx] = vals[np.arange(len(Y)), pa[:, k]]
                    Ip[Y+dy, Xx+dx] = oldI[np.arange(len(Y)), pa[:, k]]
    B = Bp[P:P+H, P:P+W]
    print("sweep", sw, "moved", moved, "cost", total(), flush=True)
    if moved == 0: break
newidx = Ip[P:P+H, P:P+W]
# rebuild sorted grid from the permutation: map old positions -> values
pos = {}
f = h5py.File(inp, "r"); Xs = f["vertex/sorted"][...]; oidx = f["vertex/index"][...]; f.close()
inv = np.empty(oidx.max() + 1, np.int64); inv[oidx.ravel()] = np.arange(H * W)
newX = Xs.reshape(H * W, C)[inv[newidx.ravel()]].reshape(H, W, C)
shutil.copy(inp, outp)
with h5py.File(outp, "r+") as f:
    f["vertex/sorted"][...] = newX; f["vertex/index"][...] = newidx
