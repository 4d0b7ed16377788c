# add_hi_bytes.py SRC.ply DST.ply - adds hx, hy, hz: the high byte (q >> 8)
# of the 14-bit joint-range code of x, y, z that the SOG scheme writes, so
# that the sort can see it as channels (an experiment of this folder README).
import struct,sys
src,dst=sys.argv[1],sys.argv[2]
b=open(src,'rb').read()
end=b.index(b'end_header\n')+len('end_header\n')
hdr=b[:end].decode().split('\n')
props=[l.split()[-1] for l in hdr if l.startswith('property')]
n=int([l for l in hdr if l.startswith('element vertex')][0].split()[-1])
P=len(props); body=b[end:]
rows=[struct.unpack_from('<%df'%P,body,i*4*P) for i in range(n)]
lo=min(min(r[0:3]) for r in rows); hi=max(max(r[0:3]) for r in rows)
out=[]
for r in rows:
    q=[int(((v-lo)/(hi-lo))*16383+0.5)>>8 for v in r[0:3]]
    out.append(struct.pack('<%df'%(P+3),*r,*q))
nh=[l for l in hdr if l!='end_header' and l!='']
nh+=['property float hx','property float hy','property float hz','end_header','']
open(dst,'wb').write('\n'.join(nh).encode()+b''.join(out))
