# warm2d.py SRC.ply DST.ply h - a PLY of exactly S*S vertices rearranged so
# that its row-major order on the S x S grid lays the 3-D Morton order of the
# positions along a 2-D Hilbert curve (of side 512, cells outside dropped):
# the 2-D-coherent warm start of this folder README ("z" = a 2-D Z-order).
import struct,sys
src,dst,curve=sys.argv[1],sys.argv[2],sys.argv[3]
b=open(src,'rb').read()
end=b.index(b'end_header\n')+len('end_header\n')
hdr=b[:end]; lines=hdr.decode().split('\n')
P=len([l for l in lines if l.startswith('property')])
n=int([l for l in lines if l.startswith('element vertex')][0].split()[-1])
body=b[end:]; rs=4*P
recs=[body[i*rs:(i+1)*rs] for i in range(n)]
pos=[struct.unpack_from('<3f',r) for r in recs]
lo=[min(p[k] for p in pos) for k in range(3)]; hi=[max(p[k] for p in pos) for k in range(3)]
def spread(v,step,bits):
    r=0
    for i in range(bits): r|=((v>>i)&1)<<(step*i)
    return r
def code3(p):
    q=[int((p[k]-lo[k])/(hi[k]-lo[k])*((1<<21)-1)) for k in range(3)]
    return spread(q[0],3,21)|spread(q[1],3,21)<<1|spread(q[2],3,21)<<2
rank=sorted(range(n),key=lambda i:(code3(pos[i]),i))
import math
S=int(math.isqrt(n)); assert S*S==n
def d2xy(nn,d):
    x=y=0; s=1; t=d
    while s<nn:
        rx=1&(t//2); ry=1&(t^rx)
        if ry==0:
            if rx==1: x=s-1-x; y=s-1-y
            x,y=y,x
        x+=s*rx; y+=s*ry; t//=4; s*=2
    return x,y
if curve=='z':
    cells=sorted(((r,c) for r in range(S) for c in range(S)),key=lambda rc:spread(rc[0],2,10)<<1|spread(rc[1],2,10))
else:
    N2=512; cells=[]
    for d in range(N2*N2):
        x,y=d2xy(N2,d)
        if x<S and y<S: cells.append((y,x))
out=[None]*n
for k,(r,c) in enumerate(cells): out[r*S+c]=recs[rank[k]]
open(dst,'wb').write(hdr+b''.join(out))
