import h5py, numpy as np, sys
for path in sys.argv[1:]:
    s = h5py.File(path, 'r')['vertex/sorted'][...]
    H, W, C = s.shape
    xyz = s[..., :3].astype(np.float64); lo, hi = xyz.min(), xyz.max()
    q = np.floor((xyz - lo) / (hi - lo) * 16383 + 0.5).astype(np.int64); h = q >> 8
    L = (h[:, 1:] == h[:, :-1]).all(-1).mean(); T = (h[1:] == h[:-1]).all(-1).mean()
    eith = ((h[1:, 1:] == h[1:, :-1]).all(-1) | (h[1:, 1:] == h[:-1, 1:]).all(-1)).mean()
    dq = np.abs(np.diff(q, axis=1)).mean((0, 1)); dv = np.abs(np.diff(q, axis=0)).mean((0, 1))
    print(f"{path}: hi==left {L:.3f} hi==top {T:.3f} either {eith:.3f}  |dq| horiz {dq} vert {dv}")
