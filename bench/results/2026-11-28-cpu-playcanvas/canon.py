import sys
src,dst=sys.argv[1],sys.argv[2]
b=bytearray(open(src,'rb').read()); n=len(b)//32; flips=clamped=0
for i in range(n):
    o=i*32+28; q=[(b[o+k]-128)/128 for k in range(4)]
    m=0
    for k in range(1,4):
        if abs(q[k])>abs(q[m]): m=k
    if q[m]<0:
        flips+=1
        for k in range(4):
            v=256-b[o+k]
            if v>255: v=255; clamped+=1
            b[o+k]=v
open(dst,'wb').write(b); print(n,flips,clamped)
