import json, sys
IM = ['xyz_lo','xyz_hi','f_dc','scale','rot','opacity']
for f in sys.argv[1:]:
    d = json.load(open(f)); ib = d['image_bytes']
    r = {}
    for c in ('png','webp'):
        s = sum(v for k,v in ib['sorted'][c].items() if not k.startswith('extra'))
        m = sum(v for k,v in ib['morton'][c].items() if not k.startswith('extra'))
        r[c] = (s, m, s/m)
    per = ' '.join('%s %.1f/%.1f' % (k, ib['sorted']['webp'][k]/1000, ib['morton']['webp'][k]/1000) for k in IM)
    print('%-10s png %.4f (%d/%d) webp %.4f (%d/%d) | %s' % (f, r['png'][2], r['png'][0], r['png'][1], r['webp'][2], r['webp'][0], r['webp'][1], per))
    print('   extras:', {k:v for k,v in ib['sorted']['webp'].items() if k.startswith('extra')})
