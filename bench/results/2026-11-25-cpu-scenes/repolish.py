# repolish.py BASE OUT WX WC WS WR SWEEPS : 2x2 AND polish of a sorted scene grid with other weights
import sys, h5py, numpy as np, shutil
import os; sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '../2026-11-24-h200-exit/cpu'))
from polish_2x2 import polish
base, out = sys.argv[1:3]; wx, wc, ws, wr = map(float, sys.argv[3:7]); sweeps = int(sys.argv[7])
with h5py.File(base, 'r') as f:
    s = f['vertex/sorted'][...].astype(np.float64); ix = f['vertex/index'][...]
H, W, C = s.shape
raw = s.reshape(-1, C)
rot = raw[:, 10:14] / np.linalg.norm(raw[:, 10:14], axis=1, keepdims=True)
def std(a): return (a - a.mean()) / a.std()
F = np.concatenate([std(raw[:, 0:3]) * wx, std(raw[:, 3:6]) * wc, std(raw[:, 7:10]) * ws, std(rot) * wr,
                    np.arange(H * W)[:, None].astype(np.float64)], 1)
X = F.reshape(H, W, -1)
# polish on the features only: the id column rides along with weight 0 via a trick: polish sees all columns,
# so scale the id column to 0 influence by polishing a view without it and applying the same moves
Xf = X[..., :-1].copy(); ids = X[..., -1].copy()
# run polish on features+id but with the id column multiplied by 0 in distances: emulate by tiny scale
Xp = np.concatenate([Xf, ids[..., None] * 1e-30], -1)
Y = polish(Xp, sweeps, verbose=True)
perm = np.rint(Y[..., -1] / 1e-30).astype(np.int64).ravel()
shutil.copy(base, out)
with h5py.File(out, 'r+') as g:
    g['vertex/sorted'][...] = s.reshape(-1, C)[perm].reshape(H, W, C).astype(g['vertex/sorted'].dtype)
    g['vertex/index'][...] = ix.reshape(-1)[perm].reshape(H, W)
