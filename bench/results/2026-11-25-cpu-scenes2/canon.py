# canon.py IN.ply OUT.ply: every Gaussian's (scale, rot) rewritten in a canonical frame:
# axes ordered by scale, largest first, and of the 4 sign choices the rotation nearest identity.
# The covariance R S S^T R^T is unchanged (a permutation/sign change of the local axes).
import numpy as np, sys
src, dst = sys.argv[1], sys.argv[2]
b = open(src, 'rb').read(); end = b.index(b'end_header\n') + 11
hdr = b[:end].decode(); names = [l.split()[-1] for l in hdr.split('\n') if l.startswith('property')]
a = np.frombuffer(b[end:], '<f4').reshape(-1, len(names)).astype(np.float64).copy()
ci = lambda n: names.index(n)
S = a[:, [ci('scale_0'), ci('scale_1'), ci('scale_2')]]
q = a[:, [ci('rot_0'), ci('rot_1'), ci('rot_2'), ci('rot_3')]]
q = q / np.linalg.norm(q, axis=1, keepdims=True)
w, x, y, z = q.T
R = np.stack([np.stack([1-2*(y*y+z*z), 2*(x*y-w*z), 2*(x*z+w*y)], -1),
              np.stack([2*(x*y+w*z), 1-2*(x*x+z*z), 2*(y*z-w*x)], -1),
              np.stack([2*(x*z-w*y), 2*(y*z+w*x), 1-2*(x*x+y*y)], -1)], 1)   # N x 3 x 3
perm = np.argsort(-S, axis=1, kind='stable')
Rp = np.take_along_axis(R, perm[:, None, :].repeat(3, 1), 2)
Sp = np.take_along_axis(S, perm, 1)
det = np.linalg.det(Rp); Rp[det < 0, :, 2] *= -1
D = np.array([[1,1,1],[1,-1,-1],[-1,1,-1],[-1,-1,1]], float)
tr = np.einsum('nii->ni', Rp) @ D.T          # trace(Rp diag(d)) for each d
Rp = Rp * D[tr.argmax(1)][:, None, :]
m = Rp; t = np.einsum('nii->n', m)
qw = np.sqrt(np.maximum(1 + t, 0)) / 2          # trace >= -1 + ... ; nearest-identity choice keeps it >= 0.5
qx = (m[:, 2, 1] - m[:, 1, 2]) / (4 * qw); qy = (m[:, 0, 2] - m[:, 2, 0]) / (4 * qw); qz = (m[:, 1, 0] - m[:, 0, 1]) / (4 * qw)
qn = np.stack([qw, qx, qy, qz], 1)
# check: same covariance
def cov(R, s): E = np.exp(2 * s); return np.einsum('nij,nj,nkj->nik', R, E, R)
w2, x2, y2, z2 = qn.T
R2 = np.stack([np.stack([1-2*(y2*y2+z2*z2), 2*(x2*y2-w2*z2), 2*(x2*z2+w2*y2)], -1),
               np.stack([2*(x2*y2+w2*z2), 1-2*(x2*x2+z2*z2), 2*(y2*z2-w2*x2)], -1),
               np.stack([2*(x2*z2-w2*y2), 2*(y2*z2+w2*x2), 1-2*(x2*x2+y2*y2)], -1)], 1)
c0, c1 = cov(R, S), cov(R2, Sp)
rel = np.abs(c0 - c1).max((1, 2)) / np.abs(c0).max((1, 2))
print('max relative covariance change', rel.max(), 'min qw', qw.min(), file=sys.stderr)
a[:, [ci('scale_0'), ci('scale_1'), ci('scale_2')]] = Sp
a[:, [ci('rot_0'), ci('rot_1'), ci('rot_2'), ci('rot_3')]] = qn
open(dst, 'wb').write(b[:end] + a.astype('<f4').tobytes())
