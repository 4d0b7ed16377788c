# domino.py BASE.h5 OUT.ply pairs.npy [cell|free] : pair the base result's splats into horizontal dominos
# (same SOG xyz_hi cell first, nearest in the sort's weighted features), write the dominos
# as a PLY of 26 properties (left then right member's 13 sort channels) for a 338 x 169 sort.
import sys, numpy as np, h5py
base, out, pairs_out = sys.argv[1], sys.argv[2], sys.argv[3]
mode = sys.argv[4] if len(sys.argv) > 4 else "cell"
with h5py.File(base, "r") as f:
    S = f["vertex/sorted"][...].reshape(-1, 14).astype(np.float64)
    names = [n.decode() if isinstance(n, bytes) else n for n in f["vertex"].attrs["channel_names"]]
ch = {n: i for i, n in enumerate(names)}
N = len(S)
use = ["x","y","z","f_dc_0","f_dc_1","f_dc_2","scale_0","scale_1","scale_2","rot_0","rot_1","rot_2","rot_3"]
V = S[:, [ch[c] for c in use]].copy()
V[:, 9:13] /= np.linalg.norm(V[:, 9:13], axis=1, keepdims=True)
F = V.copy()
for sl, w in [(slice(0,3), 8), (slice(3,6), 1), (slice(6,9), 1.5), (slice(9,13), 3)]:
    g = F[:, sl]; F[:, sl] = (g - g.mean()) / g.std() * w
xyz = S[:, :3]; lo, hi = xyz.min(), xyz.max()
code = np.floor(np.clip((xyz - lo) / (hi - lo), 0, 1) * 16383 + 0.5).astype(np.int64)
cell = ((code[:, 0] >> 8) << 12) | ((code[:, 1] >> 8) << 6) | (code[:, 2] >> 8)
def morton(c):
    k = np.zeros(len(c), np.int64)
    for b in range(14):
        for a in range(3):
            k |= ((c[:, a] >> b) & 1) << (3 * b + a)
    return k
mk = morton(code)
paired = np.zeros(N, bool); pairs = []
def greedy(ids):
    if len(ids) < 2: return
    X = F[ids]; D = ((X[:, None] - X[None]) ** 2).sum(-1); np.fill_diagonal(D, np.inf)
    iu = np.dstack(np.unravel_index(np.argsort(D, axis=None), D.shape))[0]
    used = np.zeros(len(ids), bool)
    for a, b in iu:
        if a < b and not used[a] and not used[b]:
            used[a] = used[b] = True; pairs.append((ids[a], ids[b]))
            if used.sum() >= len(ids) - 1: break
if mode == "cell":
    order = np.argsort(cell, kind="stable"); cs = cell[order]
    starts = np.flatnonzero(np.r_[True, cs[1:] != cs[:-1]]); ends = np.r_[starts[1:], N]
    for s, e in zip(starts, ends):
        ids = order[s:e]
        greedy(ids)
    for a, b in pairs: paired[a] = paired[b] = True
# leftovers: in Morton order, greedy within windows of 16
left = np.flatnonzero(~paired); left = left[np.argsort(mk[left], kind="stable")]
for s in range(0, len(left), 16):
    greedy(left[s:s + 16])
P = np.array(pairs)
# orientation: the lower Morton code on the left
sw = mk[P[:, 0]] > mk[P[:, 1]]; P[sw] = P[sw][:, ::-1]
samecell = (cell[P[:, 0]] == cell[P[:, 1]]).mean()
print("pairs", len(P), "of", N // 2, "same hi cell", round(samecell, 3), flush=True)
assert len(P) == N // 2
np.save(pairs_out, P)
cols = [V[P[:, 0], i] for i in range(13)] + [V[P[:, 1], i] for i in range(13)]
nm = ["l" + c.replace("_", "") for c in use] + ["r" + c.replace("_", "") for c in use]
hdr = "ply\nformat binary_little_endian 1.0\nelement vertex %d\n" % len(P) + "".join("property float %s\n" % n for n in nm) + "end_header\n"
with open(out, "wb") as g:
    g.write(hdr.encode()); g.write(np.stack(cols, 1).astype("<f4").tobytes())
print(" ".join(nm))
