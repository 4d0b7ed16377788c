# fold a 1 x N result into H x W (rows or snake) by copying base's file layout
import h5py, numpy as np, shutil, sys
line, base, out, mode = sys.argv[1:5]
shutil.copy(base, out)
with h5py.File(line, 'r') as f:
    s = f['vertex/sorted'][0]; ix = f['vertex/index'][0]
with h5py.File(out, 'r+') as g:
    H, W, C = g['vertex/sorted'].shape
    s = s[:H*W].reshape(H, W, C).copy(); ix = ix[:H*W].reshape(H, W).copy()
    if mode == 'snake':
        s[1::2] = s[1::2, ::-1]; ix[1::2] = ix[1::2, ::-1]
    g['vertex/sorted'][...] = s; g['vertex/index'][...] = ix
