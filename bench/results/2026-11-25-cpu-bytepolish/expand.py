# expand.py BASE.h5 PAIRS.npy DOMRESULT.h5 OUT.h5: lay the sorted dominos back as splats
import sys, shutil, numpy as np, h5py
base, pairs, dom, out = sys.argv[1:5]

P = np.load(pairs)
with h5py.File(dom, "r") as f:
    g = [k for k in f.keys()][0]; di = f[g]["index"][...]
H, Wd = di.shape
with h5py.File(base, "r") as f:
    S = f["vertex/sorted"][...]; I = f["vertex/index"][...]
C = S.shape[2]; S = S.reshape(-1, C); I = I.ravel()
L = P[di, 0]; R = P[di, 1]
items = np.empty((H, 2 * Wd), np.int64); items[:, 0::2] = L; items[:, 1::2] = R
assert np.array_equal(np.sort(items.ravel()), np.arange(H * 2 * Wd))
shutil.copy(base, out)
with h5py.File(out, "r+") as f:
    f["vertex/sorted"][...] = S[items.ravel()].reshape(H, 2 * Wd, C)
    f["vertex/index"][...] = I[items.ravel()].reshape(H, 2 * Wd)
