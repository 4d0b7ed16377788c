# K copies of a .splat side by side along x (each shifted by the capture's x extent plus 10 %),
# for timing the scene readers on a production-sized input (bench/results/2026-11-28-cpu-decpar).
# Byte-identical for the same input and K. Usage: python3 tile_splat.py IN.splat OUT.splat K
import struct, sys
src, dst, k = sys.argv[1], sys.argv[2], int(sys.argv[3])
raw = open(src, 'rb').read(); n = len(raw) // 32
xs = [struct.unpack_from('<f', raw, 32 * i)[0] for i in range(n)]
step = (max(xs) - min(xs)) * 1.1
with open(dst, 'wb') as f:
    for c in range(k):
        out = bytearray(raw)
        for i in range(n):
            struct.pack_into('<f', out, 32 * i, xs[i] + c * step)
        f.write(out)
