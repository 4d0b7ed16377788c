# mkmr.py BASE.h5 OUT.ply: base rows as a PLY plus wx,wy,wz (= x,y,z) and mr: the rank of each
# splat in the Morton order of the SOG scheme's own 14-bit joint-range codes.
import h5py, numpy as np, sys
base, out = sys.argv[1], sys.argv[2]
with h5py.File(base, 'r') as f:
    s = f['vertex/sorted'][...].reshape(-1, 14).astype(np.float32)
    names = [n.decode() if isinstance(n, bytes) else n for n in f['vertex'].attrs['channel_names']]
xyz = s[:, :3].astype(np.float64); lo, hi = xyz.min(), xyz.max()
q = np.floor((xyz - lo) / (hi - lo) * 16383 + 0.5).astype(np.uint64)
code = np.zeros(len(s), np.uint64)
for b in range(14):
    for a in range(3):
        code |= ((q[:, a] >> np.uint64(b)) & np.uint64(1)) << np.uint64(3 * b + (2 - a))
rank = np.empty(len(s)); rank[np.argsort(code, kind='stable')] = np.arange(len(s)) / len(s)
cols = [s[:, i] for i in range(14)] + [s[:, 0], s[:, 1], s[:, 2], rank.astype(np.float32)]
names = names + ['wx', 'wy', 'wz', 'mr']
hdr = 'ply\nformat binary_little_endian 1.0\nelement vertex %d\n' % len(s)
hdr += ''.join('property float %s\n' % n for n in names) + 'end_header\n'
with open(out, 'wb') as g:
    g.write(hdr.encode()); g.write(np.stack(cols, 1).astype('<f4').tobytes())
