#!/bin/bash
# pilw.sh H5 : sorted images' WebP m6 bytes via PIL (quick check)
f=$1; d=/tmp/s18/im_$(basename $f .h5); rm -rf $d
/work/main/cuplas eval $f --scheme sog --codecs png --images $d > /dev/null || exit 1
python3 - $d <<'PY'
import sys, io
from PIL import Image
d = sys.argv[1]; tot = 0; s = []
for n in ['xyz_lo','xyz_hi','f_dc','scale','rot','opacity']:
    im = Image.open(f'{d}/sorted/{n}.png'); b = io.BytesIO(); im.save(b, 'WEBP', lossless=True, method=6, quality=100)
    tot += len(b.getvalue()); s.append(f"{n}:{len(b.getvalue())/1000:.1f}")
print(d, " ".join(s), "total", tot, "ratio_vs_morton_cuplas", round(tot / 1175820, 4))
PY
