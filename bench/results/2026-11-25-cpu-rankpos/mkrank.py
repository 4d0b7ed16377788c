# mkrank.py OUT.ply MODE : lin.ply's rows with wx,wy,wz replaced: per-axis rank (CDF) transform
import numpy as np, sys
out, mode = sys.argv[1], sys.argv[2]
raw=open('/tmp/e16/lin.ply','rb').read()
i=raw.index(b'end_header\n')+11
a=np.frombuffer(raw[i:],dtype='<f4').reshape(-1,17).copy()
xyz=a[:,:3].astype(np.float64)
w=np.empty_like(xyz)
for ax in range(3):
    r=np.argsort(np.argsort(xyz[:,ax],kind='stable'),kind='stable')/len(xyz)
    if mode=='rank': w[:,ax]=r
    elif mode.startswith('mix'):   # blend of rank and linear, both to unit std
        t=float(mode[3:]); l=xyz[:,ax]
        w[:,ax]=t*(r-r.mean())/r.std()+(1-t)*(l-l.mean())/l.std()
# keep the joint-group scale meaningful: rescale each axis to its linear std
for ax in range(3):
    w[:,ax]=(w[:,ax]-w[:,ax].mean())/w[:,ax].std()*xyz[:,ax].std()
a[:,14:17]=w.astype(np.float32)
open(out,'wb').write(raw[:i]+a.astype('<f4').tobytes())
