# predent.py H5...: zeroth-order entropy (KB) of each SOG image's residuals under the
# left, top, average(L,T), gradient and select predictors, all planes of an image pooled
import sys, numpy as np, h5py
def planes(path):
    f = h5py.File(path, "r"); X = f["vertex/sorted"][...].astype(float)
    names = [n.decode() if isinstance(n, bytes) else n for n in f["vertex"].attrs["channel_names"]]; f.close()
    ch = {n: i for i, n in enumerate(names)}
    def q(cols, bits, lo=None, hi=None):
        v = X[:, :, [ch[c] for c in cols]]
        if lo is None: lo, hi = v.min(), v.max()
        return np.floor(np.clip((v - lo) / (hi - lo), 0, 1) * ((1 << bits) - 1) + 0.5).astype(np.int64)
    xyz = q(["x", "y", "z"], 14)
    return {"xyz_hi": xyz >> 8, "f_dc": q(["f_dc_0", "f_dc_1", "f_dc_2"], 8, -2, 4),
            "scale": q(["scale_0", "scale_1", "scale_2"], 6), "rot": q(["rot_0", "rot_1", "rot_2", "rot_3"], 6)}
def ent(r):
    _, c = np.unique(r.ravel(), return_counts=True); p = c / c.sum()
    return -(c * np.log2(p)).sum() / 8 / 1000
for path in sys.argv[1:]:
    print(path)
    for k, v in planes(path).items():
        x, L, T, TL = v[1:, 1:], v[1:, :-1], v[:-1, 1:], v[:-1, :-1]
        sel = np.where(np.abs(T - TL) < np.abs(L - TL), L, T)
        print(f"  {k:7s} L {ent(x - L):4.0f}  T {ent(x - T):4.0f}  avg {ent(x - (L + T) // 2):4.0f}"
              f"  grad {ent(x - (L + T - TL)):4.0f}  select {ent(x - sel):4.0f}")
