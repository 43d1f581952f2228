#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""An event whose fields do not parse, in a JFR file that is otherwise whole.

    damage.py IN OUT K TYPE [N]

OUT is IN with the last N bytes (default 1) of the first TYPE event of chunk K given their
continuation bit: the event's last varints run past its end, while its header, its size and every
other event stay as they were.  Prints the offset of the event's last byte.
"""
import struct, sys
def varint(b, i):
    v = s = 0
    while True:
        c = b[i]; i += 1
        if s == 56: return v | c << 56, i
        v |= (c & 0x7f) << s; s += 7
        if c < 0x80: return v, i
def string(b, i):
    enc = b[i]; i += 1
    if enc in (0, 1): return '', i
    n, i = varint(b, i)
    if enc in (3, 5): return b[i:i + n].decode('utf-8', 'replace'), i + n
    out = []
    for _ in range(n):
        c, i = varint(b, i); out.append(chr(c))
    return ''.join(out), i
def element(b, i, strs, ids):
    name, i = varint(b, i)
    n, i = varint(b, i)
    attrs = {}
    for _ in range(n):
        k, i = varint(b, i); v, i = varint(b, i); attrs[strs[k]] = strs[v]
    if strs[name] == 'class': ids[attrs['name']] = int(attrs['id'])
    n, i = varint(b, i)
    for _ in range(n): i = element(b, i, strs, ids)
    return i
d = bytearray(open(sys.argv[1], 'rb').read())
want, off = int(sys.argv[3]), 0
for _ in range(want - 1):
    off += struct.unpack('>q', d[off + 8:off + 16])[0]
size, meta = struct.unpack('>q', d[off + 8:off + 16])[0], struct.unpack('>q', d[off + 24:off + 32])[0]
i = off + meta
for _ in range(5): _, i = varint(d, i)  # size, type, start, duration, id
n, i = varint(d, i)
strs = []
for _ in range(n):
    s, i = string(d, i); strs.append(s)
ids = {}
element(d, i, strs, ids)
want_type, i = ids[sys.argv[4]], off + 68
while i < off + size:
    n, j = varint(d, i)
    t, _ = varint(d, j)
    if t == want_type:
        for k in range(1, (int(sys.argv[5]) if len(sys.argv) > 5 else 1) + 1):
            d[i + n - k] |= 0x80
        open(sys.argv[2], 'wb').write(d)
        print(i + n - 1)
        sys.exit(0)
    i += n
sys.exit('no %s event in chunk %d' % (sys.argv[4], want))
