#!/usr/bin/env python3
"""Decode tarot .splat as cuplas does (src/io/splat.c) and append SOG-quantised
codes as extra float properties. Joint ranges are taken over the square crop
by opacity (the cells eval's sog scheme codes), as schemes.c code_group does."""
import struct, math, sys
SRC = '/work/shared/data/scenes/academic_tarot_cards.splat'
OUT = sys.argv[1] if len(sys.argv) > 1 else '/tmp/lever/in/tarot_q.ply'
SH_C0 = 0.28209479177387814
FLT_MIN = 1.1754943508222875e-38
f32 = lambda v: struct.unpack('<f', struct.pack('<f', v))[0]
data = open(SRC, 'rb').read()
N = len(data) // 32
rows = []
for i in range(N):
    r = data[32*i:32*i+32]
    x, y, z, sx, sy, sz = struct.unpack('<6f', r[:24])
    c = r[24:28]; q = r[28:32]
    dc = [f32((c[k]/255.0 - 0.5)/SH_C0) for k in range(3)]
    p = c[3]/255.0
    p = min(max(p, 0.5/255), 254.5/255)
    op = f32(math.log(p/(1-p)))
    sc = [f32(math.log(s) if s > 0 else math.log(FLT_MIN)) for s in (sx, sy, sz)]
    rot = [f32((q[k]-128)/128.0) for k in range(4)]
    rows.append([x, y, z] + dc + [op] + sc + rot)
# crop: square side floor(sqrt(N)), highest opacity, ties keep lower row
side = int(math.isqrt(N)); M = side*side
keep = sorted(range(N), key=lambda i: (-rows[i][6], i))[:M]
def jrange(cols):
    lo = min(rows[i][c] for i in keep for c in cols)
    hi = max(rows[i][c] for i in keep for c in cols)
    return lo, hi
def code(v, lo, hi, bits):
    top = (1 << bits) - 1
    t = (v-lo)/(hi-lo) if hi > lo else 0.0
    t = min(max(t, 0.0), 1.0)
    return math.floor(t*top + 0.5)
xr = jrange([0, 1, 2]); sr = jrange([7, 8, 9]); rr = jrange([10, 11, 12, 13])
print('N', N, 'side', side, 'xyz', xr, 'scale', sr, 'rot', rr, file=sys.stderr)
names = ['x','y','z','f_dc_0','f_dc_1','f_dc_2','opacity','scale_0','scale_1','scale_2','rot_0','rot_1','rot_2','rot_3']
import pickle
pickle.dump(rows, open('/tmp/uv/rows.pkl','wb'))
out = bytearray()
hdr = 'ply\nformat binary_little_endian 1.0\nelement vertex %d\n' % N
hdr += ''.join('property float %s\n' % n for n in names) + 'end_header\n'
out += hdr.encode()
pk = struct.Struct('<%df' % len(names))
for r in rows:
    out += pk.pack(*r)
open(OUT, 'wb').write(out)
