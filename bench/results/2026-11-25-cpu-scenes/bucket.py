# bucket.py BASE LINE OUT MODE : order = Morton of SOG xyz hi-cell, then within-cell by MODE
import h5py, numpy as np, shutil, sys
base, line, out, mode = sys.argv[1:5]
snake = len(sys.argv) > 5 and sys.argv[5] == 'snake'
with h5py.File(base, 'r') as f:
    s = f['vertex/sorted'][...]; ix = f['vertex/index'][...]
    names = [n.decode() if isinstance(n, bytes) else n for n in f['vertex'].attrs['channel_names']]
H, W, C = s.shape
s2 = s.reshape(-1, C).astype(np.float64); ix2 = ix.reshape(-1)
xyz = s2[:, :3]
lo, hi = xyz.min(), xyz.max()
q = np.clip(np.round((xyz - lo) / (hi - lo) * 16383), 0, 16383).astype(np.int64)
def morton(v, bits):
    code = np.zeros(len(v), np.int64)
    for b in range(bits):
        for a in range(3):
            code |= ((v[:, a] >> b) & 1) << (3 * b + a)
    return code
cell = morton(q >> 8, 6)
if mode == 'morton':
    sec = morton(q, 14)
elif mode == 'line':
    with h5py.File(line, 'r') as f:
        lix = f['vertex/index'][0]
    rank = {int(v): i for i, v in enumerate(lix)}
    sec = np.array([rank[int(v)] for v in ix2])
elif mode == 'grid':
    sec = np.arange(len(ix2))
order = np.lexsort((sec, cell))
print('cells', len(np.unique(cell)), 'mean per cell', len(cell) / len(np.unique(cell)))
shutil.copy(base, out)
ns = s.reshape(-1, C)[order].reshape(H, W, C).copy(); ni = ix2[order].reshape(H, W).copy()
if snake:
    ns[1::2] = ns[1::2, ::-1]; ni[1::2] = ni[1::2, ::-1]
with h5py.File(out, 'r+') as g:
    g['vertex/sorted'][...] = ns; g['vertex/index'][...] = ni
