import numpy as np
def dpq(X, p=16):
    H,W,C=X.shape; n=H*W; x=X.reshape(n,C).astype(np.float64)
    d=np.sqrt(((x[:,None,:]-x[None,:,:])**2).sum(-1))
    yy,xx=np.divmod(np.arange(n),W)
    ld=(yy[:,None]-yy[None,:])**2+(xx[:,None]-xx[None,:])**2
    Dbar=d.sum()/(n*(n-1))
    s2=np.zeros(n-1); shd=np.zeros(n-1)
    for i in range(n):
        m=np.arange(n)!=i; di=d[i,m]; li=ld[i,m]
        o=np.lexsort((di,li)); s2+=np.cumsum(di[o])/np.arange(1,n)
        shd+=np.cumsum(np.sort(di))/np.arange(1,n)
    g2=np.maximum(0,(Dbar-s2/n)/Dbar); gh=np.maximum(0,(Dbar-shd/n)/Dbar)
    nm=lambda g:(g.max()*((g/g.max())**p).sum()**(1/p))
    return nm(g2)/nm(gh)
