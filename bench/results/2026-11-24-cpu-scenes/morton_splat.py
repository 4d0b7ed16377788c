# morton_splat.py SRC.splat DST.splat - the splats of an antimatter15 .splat
# reordered by the 3-D Morton code (21 bits an axis, over the bounding box)
# of their positions: the warm-start experiment of this folder README.
import struct,sys
src,dst=sys.argv[1],sys.argv[2]
b=open(src,'rb').read(); n=len(b)//32
recs=[b[i*32:(i+1)*32] for i in range(n)]
pos=[struct.unpack_from('<3f',r) for r in recs]
lo=[min(p[k] for p in pos) for k in range(3)]; hi=[max(p[k] for p in pos) for k in range(3)]
def spread(v):
    r=0
    for i in range(21):
        r|=((v>>i)&1)<<(3*i)
    return r
def code(p):
    q=[int((p[k]-lo[k])/(hi[k]-lo[k])*((1<<21)-1)) if hi[k]>lo[k] else 0 for k in range(3)]
    return spread(q[0])|spread(q[1])<<1|spread(q[2])<<2
idx=sorted(range(n),key=lambda i:(code(pos[i]),i))
open(dst,'wb').write(b''.join(recs[i] for i in idx))
