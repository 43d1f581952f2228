#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# control_check.py OUTPUT CLEAN-OUTPUT [--loose]: OUTPUT is a text output (lfr report, --diff,
# collapsed, lfr top --text) of a recording made by `genjfr --control-names`, CLEAN-OUTPUT the same
# output of the same recording made without it.  Checks that OUTPUT holds no control character
# (C0 but the newlines that end its lines, DEL, C1) and that it is CLEAN-OUTPUT once the names'
# controls, each shown as a space (ESC [2J ESC ]0;x BEL CR LF: " [2J ]0;x   ", in folded stacks
# " [2J ]0:x   "), are taken out:
# the same lines, nothing cut or added.  The files' names (ctl*, clean*), "File:" lines and the
# event types' sizes, which the names' length changes, are left out; with --loose runs of spaces count as one (lfr top pads its
# columns to the names' lengths).  Prints what it found; exits 1 on a difference.
import re
import sys

SHOWN = ' [2J ]0;x   '  # ESC "[2J" ESC "]0;x" BEL CR LF, each control a space
FOLDED = SHOWN.replace(';', ':')  # folded stacks: ';' separates frames


def lines(path, drop_controls):
    data = open(path, 'rb').read()
    bad = [i for i, b in enumerate(data) if (b < 0x20 and b != 0x0a) or b == 0x7f]
    bad += [m.start() for m in re.finditer(rb'\xc2[\x80-\x9f]', data)]
    if drop_controls and bad:
        sys.exit('%s: control bytes at offsets %s: %r' % (path, bad[:5], data[max(0, bad[0] - 20):bad[0] + 20]))
    text = data.decode('utf-8', 'replace')
    shown = text.count(SHOWN) + text.count(FOLDED)
    if drop_controls:
        text = text.replace(SHOWN, '').replace(FOLDED, '')
    text = re.sub(r'ctl|clean', 'X', text)
    out, sizes = [], False
    for l in text.split('\n'):
        if l.startswith('File: '):
            continue
        sizes = sizes or l.startswith('EVENT TYPE')
        out.append(re.sub(r' +\d+$', '', l) if sizes else l)  # the event types' sizes
    if '--loose' in sys.argv:
        out = [' '.join(l.split()) for l in out]
    return out, shown


got, shown = lines(sys.argv[1], True)
want, _ = lines(sys.argv[2], False)
if not shown:
    sys.exit('%s: no name with its controls shown as spaces' % sys.argv[1])
if got != want:
    for g, w in zip(got, want):
        if g != w:
            sys.exit('%s: line differs from the clean output:\n  %r\n  %r' % (sys.argv[1], g, w))
    sys.exit('%s: %d lines, the clean output %d' % (sys.argv[1], len(got), len(want)))
print('%d lines, no control byte, %d names with ESC [2J, ESC ]0;x BEL, CR, LF shown as spaces'
      % (len(got), shown))
