"""Hybrid layouts: set P in Morton order on the top rows, set S 2D-sorted below.
usage: hyb.py prep CRIT FRAC  -> writes S.ply (S items, original channels) and state.pkl
       hyb.py join S_INDEX.bin OUT.ply"""
import struct, sys, pickle, math
W = 338
rows = pickle.load(open('/tmp/uv/rows.pkl','rb')); N = len(rows)
M = W*W
keep = sorted(range(N), key=lambda i: (-rows[i][6], i))[:M]
names = ['x','y','z','f_dc_0','f_dc_1','f_dc_2','opacity','scale_0','scale_1','scale_2','rot_0','rot_1','rot_2','rot_3']
def write_ply(items, path):
    hdr = 'ply\nformat binary_little_endian 1.0\nelement vertex %d\n' % len(items) + ''.join('property float %s\n' % n for n in names) + 'end_header\n'
    pk = struct.Struct('<14f'); o = bytearray(hdr.encode())
    for i in items: o += pk.pack(*rows[i])
    open(path,'wb').write(o)
def spread3(v):
    x = v & 0x1fffff
    x = (x | x << 32) & 0x1f00000000ffff
    x = (x | x << 16) & 0x1f0000ff0000ff
    x = (x | x << 8) & 0x100f00f00f00f00f
    x = (x | x << 4) & 0x10c30c30c30c30c3
    x = (x | x << 2) & 0x1249249249249249
    return x
def morton(items):
    lo = [min(rows[i][k] for i in keep) for k in range(3)]; hi = [max(rows[i][k] for i in keep) for k in range(3)]
    def code(i):
        q = [math.floor(min(max((rows[i][k]-lo[k])/(hi[k]-lo[k]),0),1)*2097151+0.5) for k in range(3)]
        return spread3(q[0])<<2 | spread3(q[1])<<1 | spread3(q[2])
    return sorted(items, key=lambda i: (code(i), i))
if sys.argv[1] == 'prep':
    crit, frac = sys.argv[2], float(sys.argv[3])
    lo = min(rows[i][k] for i in keep for k in range(3)); hi = max(rows[i][k] for i in keep for k in range(3))
    cell = {}
    for i in keep:
        c = tuple(math.floor(min(max((rows[i][k]-lo)/(hi-lo),0),1)*16383+0.5) >> 8 for k in range(3))
        cell[i] = c
    occ = {}
    for i in keep: occ[cell[i]] = occ.get(cell[i],0)+1
    rP = round(frac*W); nP = rP*W
    if crit == 'dense':   # P = items of the most crowded cells
        order = sorted(keep, key=lambda i: (-occ[cell[i]], i))
    elif crit == 'sparse':
        order = sorted(keep, key=lambda i: (occ[cell[i]], i))
    elif crit == 'mortonhead':   # P = a contiguous Morton range (a spatial region)
        order = morton(keep)
    P = order[:nP]; Pset = set(P); S = [i for i in keep if i not in Pset]
    write_ply(S, '/tmp/uv/S.ply')
    pickle.dump((morton(P), S, rP), open('/tmp/uv/state.pkl','wb'))
    print('P', len(P), 'S', len(S), 'rows', rP, W - rP)
else:
    mP, S, rP = pickle.load(open('/tmp/uv/state.pkl','rb'))
    nS = len(S)
    idx = struct.unpack('<%di' % nS, open(sys.argv[2],'rb').read())
    layout = mP + [S[j] for j in idx]
    assert len(layout) == M and len(set(layout)) == M
    write_ply(layout, sys.argv[3])
