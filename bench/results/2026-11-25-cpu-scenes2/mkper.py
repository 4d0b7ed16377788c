# mkper.py BASE.h5 OUT.ply P MODE: base rows as a PLY plus wx,wy,wz (= x,y,z) and p0..p5:
# cos and sin of each axis's position in SOG cells (14-bit joint codes / 256) at period P cells;
# MODE stair: of the cell index (floor), smooth: of the continuous position.
import h5py, numpy as np, sys
base, out, P, mode = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
with h5py.File(base, 'r') as f:
    s = f['vertex/sorted'][...].reshape(-1, 14).astype(np.float32)
    names = [n.decode() if isinstance(n, bytes) else n for n in f['vertex'].attrs['channel_names']]
xyz = s[:, :3].astype(np.float64); lo, hi = xyz.min(), xyz.max()
u = (xyz - lo) / (hi - lo) * 16383 / 256.0
if mode == 'stair': u = np.floor(u)
ph = 2 * np.pi * u / P
per = [np.cos(ph[:, a]) for a in range(3)] + [np.sin(ph[:, a]) for a in range(3)]
cols = [s[:, i] for i in range(14)] + [s[:, 0], s[:, 1], s[:, 2]] + per
names = names + ['wx', 'wy', 'wz'] + ['p%d' % i for i in range(6)]
hdr = 'ply\nformat binary_little_endian 1.0\nelement vertex %d\n' % len(s)
hdr += ''.join('property float %s\n' % n for n in names) + 'end_header\n'
with open(out, 'wb') as g:
    g.write(hdr.encode()); g.write(np.stack(cols, 1).astype('<f4').tobytes())
