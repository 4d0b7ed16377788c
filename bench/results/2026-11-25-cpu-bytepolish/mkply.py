# mkply.py BASE.h5 OUT.ply MODE ALPHA : the base result's rows (sorted order) as a PLY,
# plus wx,wy,wz: x,y,z warped so that the SOG scheme's high-byte cells look tight.
import h5py, numpy as np, sys
base, out, mode, alpha = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
with h5py.File(base, 'r') as f:
    s = f['vertex/sorted'][...].reshape(-1, 14).astype(np.float32)
    names = [n.decode() if isinstance(n, bytes) else n for n in f['vertex'].attrs['channel_names']]
xyz = s[:, :3].astype(np.float64)
lo, hi = xyz.min(), xyz.max()
u = (xyz - lo) / (hi - lo) * 16383 / 256.0          # cell units: boundaries at integers
if mode == 'sin':
    w = u + alpha * np.sin(2 * np.pi * u) / (2 * np.pi)
elif mode == 'stair':                                # hard staircase plus a fraction of the line
    w = np.floor(u) + 0.5 + alpha * (u - np.floor(u) - 0.5)
else:
    w = u
cols = [s[:, i] for i in range(14)] + [w[:, i].astype(np.float32) for i in range(3)]
names = names + ['wx', 'wy', 'wz']
hdr = 'ply\nformat binary_little_endian 1.0\nelement vertex %d\n' % len(s)
hdr += ''.join('property float %s\n' % n for n in names) + 'end_header\n'
with open(out, 'wb') as g:
    g.write(hdr.encode()); g.write(np.stack(cols, 1).astype('<f4').tobytes())
