# encode an antimatter15 .splat as a SuperSplat compressed PLY (a workshop script for
# bench/results/2026-11-28-cpu-compressed; written from the format facts in src/io/ply_compressed.c)
import struct, sys, math
src, dst = sys.argv[1], sys.argv[2]
raw = open(src, 'rb').read(); n = len(raw) // 32
S = []
for i in range(n):
    x, y, z, sx, sy, sz = struct.unpack_from('<6f', raw, 32 * i)
    r, g, b, a, q0, q1, q2, q3 = struct.unpack_from('<8B', raw, 32 * i + 24)
    q = [(v - 128) / 128 for v in (q0, q1, q2, q3)]
    S.append(((x, y, z), tuple(math.log(max(s, 1e-30)) for s in (sx, sy, sz)), (r / 255, g / 255, b / 255), a, q))
def unorm(t, bits):
    m = (1 << bits) - 1
    return max(0, min(m, int(round(t * m))))
chunks = []; verts = []
for c0 in range(0, n, 256):
    blk = S[c0:c0 + 256]
    lo = [min(s[0][k] for s in blk) for k in range(3)]; hi = [max(s[0][k] for s in blk) for k in range(3)]
    slo = [max(-20, min(s[1][k] for s in blk)) for k in range(3)]; shi = [min(20, max(s[1][k] for s in blk)) for k in range(3)]
    clo = [min(s[2][k] for s in blk) for k in range(3)]; chi = [max(s[2][k] for s in blk) for k in range(3)]
    chunks.append(lo + hi + slo + shi + clo + chi)
    t = lambda v, a, b: 0.0 if b == a else (v - a) / (b - a)
    for p, sc, col, al, q in blk:
        pp = unorm(t(p[0], lo[0], hi[0]), 11) << 21 | unorm(t(p[1], lo[1], hi[1]), 10) << 11 | unorm(t(p[2], lo[2], hi[2]), 11)
        ps = unorm(t(min(20, max(-20, sc[0])), slo[0], shi[0]), 11) << 21 | unorm(t(min(20, max(-20, sc[1])), slo[1], shi[1]), 10) << 11 | unorm(t(min(20, max(-20, sc[2])), slo[2], shi[2]), 11)
        pc = unorm(t(col[0], clo[0], chi[0]), 8) << 24 | unorm(t(col[1], clo[1], chi[1]), 8) << 16 | unorm(t(col[2], clo[2], chi[2]), 8) << 8 | al
        nq = math.sqrt(sum(v * v for v in q)) or 1.0
        q = [v / nq for v in q]
        big = max(range(4), key=lambda k: abs(q[k]))
        if q[big] < 0: q = [-v for v in q]
        rest = [q[k] for k in range(4) if k != big]
        pr = big << 30
        for j, v in enumerate(rest):
            pr |= unorm(v / math.sqrt(2) + 0.5, 10) << (20 - 10 * j)
        verts.append((pp, pr, ps, pc))
names = ['min_x','min_y','min_z','max_x','max_y','max_z','min_scale_x','min_scale_y','min_scale_z','max_scale_x','max_scale_y','max_scale_z','min_r','min_g','min_b','max_r','max_g','max_b']
with open(dst, 'wb') as f:
    h = 'ply\nformat binary_little_endian 1.0\nelement chunk %d\n' % len(chunks)
    h += ''.join('property float %s\n' % s for s in names)
    h += 'element vertex %d\n' % n + ''.join('property uint %s\n' % s for s in ('packed_position','packed_rotation','packed_scale','packed_color'))
    h += 'end_header\n'
    f.write(h.encode())
    for c in chunks: f.write(struct.pack('<18f', *c))
    for v in verts: f.write(struct.pack('<4I', *v))
