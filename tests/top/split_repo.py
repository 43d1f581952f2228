#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# split_repo.py FILE.jfr DIR: writes each chunk of FILE as one file of the repository DIR, named by
# the chunk's start time as a continuous recording names it (2026-11-24T01-02-03.123456789Z.jfr).
# A chunk's offsets count from its own start, so each chunk is a complete recording by itself.
import os, struct, sys, time

data = open(sys.argv[1], 'rb').read()
os.makedirs(sys.argv[2], mode=0o750, exist_ok=True)
off = 0
while off < len(data):
    assert data[off:off + 4] == b'FLR\0', f'no chunk at offset {off}'
    size, = struct.unpack('>q', data[off + 8:off + 16])
    start, = struct.unpack('>q', data[off + 32:off + 40])
    t = time.gmtime(start // 10**9)
    name = time.strftime('%Y-%m-%dT%H-%M-%S', t) + '.%09dZ.jfr' % (start % 10**9)
    with open(os.path.join(sys.argv[2], name), 'wb') as f:
        f.write(data[off:off + size])
    off += size
