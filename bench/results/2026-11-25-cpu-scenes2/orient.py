import h5py, numpy as np, shutil, sys
base, out, k, flip = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
shutil.copy(base, out)
with h5py.File(out, 'r+') as g:
    s = g['vertex/sorted'][...]; ix = g['vertex/index'][...]
    s = np.rot90(s, k, axes=(0, 1)); ix = np.rot90(ix, k)
    if flip: s = s[:, ::-1]; ix = ix[:, ::-1]
    g['vertex/sorted'][...] = np.ascontiguousarray(s); g['vertex/index'][...] = np.ascontiguousarray(ix)
