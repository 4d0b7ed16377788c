# .splat -> raw.ply (as cuplas decodes it) and canon.ply (each Gaussian's
# frame canonicalised: scale axes in descending order, the proper rotation
# among the 4 axis-sign choices closest to identity, w >= 0). Same Gaussians.
import struct, math, sys
SH_C0 = 0.28209479177387814
src = sys.argv[1]
b = open(src, 'rb').read(); n = len(b) // 32
names = ["x","y","z","f_dc_0","f_dc_1","f_dc_2","opacity","scale_0","scale_1","scale_2","rot_0","rot_1","rot_2","rot_3"]
def hdr(n): return ("ply\nformat binary_little_endian 1.0\nelement vertex %d\n" % n + "".join("property float %s\n" % s for s in names) + "end_header\n").encode()
def q2m(w,x,y,z):
    return [[1-2*(y*y+z*z), 2*(x*y-w*z), 2*(x*z+w*y)],
            [2*(x*y+w*z), 1-2*(x*x+z*z), 2*(y*z-w*x)],
            [2*(x*z-w*y), 2*(y*z+w*x), 1-2*(x*x+y*y)]]
def m2q(m):
    t = m[0][0]+m[1][1]+m[2][2]
    if t > 0:
        s = math.sqrt(t+1)*2; w=0.25*s; x=(m[2][1]-m[1][2])/s; y=(m[0][2]-m[2][0])/s; z=(m[1][0]-m[0][1])/s
    elif m[0][0] > m[1][1] and m[0][0] > m[2][2]:
        s = math.sqrt(1+m[0][0]-m[1][1]-m[2][2])*2; w=(m[2][1]-m[1][2])/s; x=0.25*s; y=(m[0][1]+m[1][0])/s; z=(m[0][2]+m[2][0])/s
    elif m[1][1] > m[2][2]:
        s = math.sqrt(1+m[1][1]-m[0][0]-m[2][2])*2; w=(m[0][2]-m[2][0])/s; x=(m[0][1]+m[1][0])/s; y=0.25*s; z=(m[1][2]+m[2][1])/s
    else:
        s = math.sqrt(1+m[2][2]-m[0][0]-m[1][1])*2; w=(m[1][0]-m[0][1])/s; x=(m[0][2]+m[2][0])/s; y=(m[1][2]+m[2][1])/s; z=0.25*s
    if w < 0: w,x,y,z = -w,-x,-y,-z
    return w,x,y,z
pmin, pmax = 0.5/255, 254.5/255
raw = bytearray(hdr(n)); can = bytearray(hdr(n)); maxerr = 0
for i in range(n):
    r = b[i*32:(i+1)*32]
    xyz = struct.unpack_from('<3f', r, 0); sc = struct.unpack_from('<3f', r, 12)
    dc = [(r[24+k]/255 - 0.5)/SH_C0 for k in range(3)]
    a = min(max(r[27]/255, pmin), pmax); op = math.log(a/(1-a))
    ls = [math.log(s) if s > 0 else math.log(1.1754943508222875e-38) for s in sc]
    q = [(r[28+k]-128)/128 for k in range(4)]
    row = list(xyz) + dc + [op] + ls + q
    raw += struct.pack('<14f', *row)
    nq = math.sqrt(sum(c*c for c in q)) or 1.0
    w,x,y,z = [c/nq for c in q]
    m = q2m(w,x,y,z)
    o = sorted(range(3), key=lambda k: -ls[k])
    M = [[m[rr][o[k]] for k in range(3)] for rr in range(3)]
    # parity of o: odd -> flip the last column to stay proper
    inv = sum(1 for p in range(3) for s in range(p+1,3) if o[p] > o[s])
    if inv % 2: 
        for rr in range(3): M[rr][2] = -M[rr][2]
    best = None
    for d in ((1,1,1),(1,-1,-1),(-1,1,-1),(-1,-1,1)):
        t = sum(d[k]*M[k][k] for k in range(3))
        if best is None or t > best[0]: best = (t, d)
    d = best[1]
    M = [[M[rr][k]*d[k] for k in range(3)] for rr in range(3)]
    cq = m2q(M)
    cs = [ls[o[k]] for k in range(3)]
    # keep the quaternion's stored length (the sort scales to unit anyway)
    can += struct.pack('<14f', *(list(xyz) + dc + [op] + cs + [c*nq for c in cq]))
    # check: covariance unchanged
    if i % 997 == 0:
        m2 = q2m(*cq); e = [math.exp(2*s) for s in ls]; e2 = [math.exp(2*s) for s in cs]
        for p_ in range(3):
            for s_ in range(3):
                c1 = sum(m[p_][k]*e[k]*m[s_][k] for k in range(3)); c2 = sum(m2[p_][k]*e2[k]*m2[s_][k] for k in range(3))
                maxerr = max(maxerr, abs(c1-c2)/(max(e)+1e-30))
open(sys.argv[2], 'wb').write(raw); open(sys.argv[3], 'wb').write(can)
print(n, 'max relative covariance error', maxerr)
