import pickle, struct, math, sys
sys.path.insert(0,'/work/main/bench/results/2026-11-28-cpu-metric')
rows = pickle.load(open('/tmp/uv/rows.pkl','rb')); N=len(rows); W=338; M=W*W
keep = sorted(range(N), key=lambda i: (-rows[i][6], i))[:M]
def spread3(v):
    x = v & 0x1fffff
    x = (x | x << 32) & 0x1f00000000ffff
    x = (x | x << 16) & 0x1f0000ff0000ff
    x = (x | x << 8) & 0x100f00f00f00f00f
    x = (x | x << 4) & 0x10c30c30c30c30c3
    x = (x | x << 2) & 0x1249249249249249
    return x
lo = [min(rows[i][k] for i in keep) for k in range(3)]; hi = [max(rows[i][k] for i in keep) for k in range(3)]
def code(i):
    q = [math.floor(min(max((rows[i][k]-lo[k])/(hi[k]-lo[k]),0),1)*2097151+0.5) for k in range(3)]
    return spread3(q[0])<<2 | spread3(q[1])<<1 | spread3(q[2])
mort = sorted(keep, key=lambda i: (code(i), i))
with open('items.bin','wb') as f:
    for i in mort: f.write(struct.pack('<14f', *rows[i]))
print(M)
