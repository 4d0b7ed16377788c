import struct, sys, pickle
idx_file, out = sys.argv[1], sys.argv[2]
rows = pickle.load(open('/tmp/uv/rows.pkl','rb')); N=len(rows)
idx = struct.unpack('<%di' % (338*338), open(idx_file,'rb').read())
uv = [(169.0,169.0)]*N
for k,i in enumerate(idx):
    if i >= 0: uv[i] = (float(k//338), float(k%338))
names = ['x','y','z','f_dc_0','f_dc_1','f_dc_2','opacity','scale_0','scale_1','scale_2','rot_0','rot_1','rot_2','rot_3','u','v']
hdr = 'ply\nformat binary_little_endian 1.0\nelement vertex %d\n' % N + ''.join('property float %s\n' % n for n in names) + 'end_header\n'
pk = struct.Struct('<16f'); o = bytearray(hdr.encode())
for r,(a,b) in zip(rows,uv): o += pk.pack(*(r+[a,b]))
open(out,'wb').write(o)
