# wpm.py: a model of WebP lossless's cost: per-tile best of 14 predictors, per-channel
# entropy with image-wide histograms (optionally after subtract-green).
import numpy as np
def shifts(A):
    H, W, C = A.shape
    P = np.zeros((H + 1, W + 2, C), np.int64); P[1:, 1:W+1] = A
    L = P[1:, 0:W]; T = P[0:H, 1:W+1]; TL = P[0:H, 0:W]; TR = P[0:H, 2:W+2].copy()
    TR[:, W-1] = A[:, 0]  # rightmost column: the leftmost pixel of the current row (spec)
    return L, T, TL, TR
def av(a, b): return (a + b) >> 1
def clamp(v): return np.clip(v, 0, 255)
def preds(A):
    """all 14 predictions, (14, H, W, C); borders as the spec says"""
    H, W, C = A.shape
    L, T, TL, TR = shifts(A)
    sel_l = (np.abs(T - TL).sum(-1) < np.abs(L - TL).sum(-1))[..., None]
    # spec Select: pL = sum|p - L| = sum|T - TL|, pT = sum|L - TL|; if pL < pT return L else T
    out = np.stack([
        np.zeros_like(A, dtype=np.int64), L, T, TR, TL, av(av(L, TR), T), av(L, TL), av(L, T), av(TL, T), av(T, TR),
        av(av(L, TL), av(T, TR)), np.where(sel_l, L, T), clamp(L + T - TL), clamp(av(L, T) + (av(L, T) - TL) // 2)])
    # borders: (0,0) black, row 0 L, column 0 T
    out[:, 0, :] = L[0, :][None]; out[:, :, 0] = T[:, 0][None]; out[:, 0, 0] = 0
    return out
def cost(A, tile=16, green=False, iters=3, ret_modes=False):
    A = A.astype(np.int64)
    if green and A.shape[2] >= 3:
        A = A.copy(); A[..., 0] = (A[..., 0] - A[..., 1]) & 255; A[..., 2] = (A[..., 2] - A[..., 1]) & 255
    H, W, C = A.shape
    R = (A[None] - preds(A)) & 255  # 14 H W C
    ty, tx = (H + tile - 1) // tile, (W + tile - 1) // tile
    tid = (np.arange(H)[:, None] // tile) * tx + np.arange(W)[None] // tile
    mode = np.full(ty * tx, 11)
    for it in range(iters):
        Rm = R[mode[tid], np.arange(H)[:, None], np.arange(W)[None]]  # H W C
        tabs = []
        for c in range(C):
            h = np.bincount(Rm[..., c].ravel(), minlength=256) + 0.1
            tabs.append(-np.log2(h / h.sum()))
        bits = sum(tabs[c][R[..., c]] for c in range(C))  # 14 H W
        per = np.zeros((14, ty * tx))
        for m in range(14): per[m] = np.bincount(tid.ravel(), bits[m].ravel(), minlength=ty * tx)
        mode = per.argmin(0)
    Rm = R[mode[tid], np.arange(H)[:, None], np.arange(W)[None]]
    tot = 0
    for c in range(C):
        h = np.bincount(Rm[..., c].ravel(), minlength=256); p = h[h > 0] / h.sum()
        tot += -(h[h > 0] * np.log2(p)).sum()
    return (tot / 8, mode) if ret_modes else tot / 8
if __name__ == "__main__":
    import sys
    from PIL import Image
    d = sys.argv[1]
    for order in ("sorted", "morton"):
        s = []
        for n in ("xyz_lo", "xyz_hi", "f_dc", "scale", "rot", "opacity"):
            im = np.array(Image.open(f"{d}/{order}/{n}.png"))
            if im.ndim == 2: im = im[..., None]
            s.append((n, cost(im) / 1000, cost(im, green=True) / 1000, im.shape))
        print(order, " ".join(f"{n}:{a:.0f}/{b:.0f}" for n, a, b, sh in s), "tot", sum(min(a, b) for _, a, b, _ in s))
