#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# expect.py COLLAPSED: from `lfr report -f collapsed --threads` (every sample, kernel frames with
# _[k]), what `lfr top -k -w 0` must show first: the (function, thread) with the most self samples
# (ties broken by the most total samples), printed as "SELF% FUNCTION TID" with lfr top's rounding.
# expect.py COLLAPSED zoom FUNCTION: the first caller and the first callee of FUNCTION as lfr top's
# zoom lists them (by samples, each sample counted once): "TOTAL% CALLER" then "TOTAL% CALLEE".
import collections, re, sys

self_ = collections.Counter()
total = collections.Counter()
n = 0
for line in open(sys.argv[1]):
    stack, count = line.rstrip('\n').rsplit(' ', 1)
    count = int(count)
    frames = stack.split(';')
    tid = re.search(r'tid=(\d+)$', frames[0]).group(1)
    funcs = [re.sub(r'_\[k\]$', '', f) for f in frames[1:]]
    n += count
    self_[(funcs[-1], tid)] += count
    for f in set(funcs):
        total[(f, tid)] += count
if len(sys.argv) > 2:
    callers, callees = collections.Counter(), collections.Counter()
    for line in open(sys.argv[1]):
        stack, count = line.rstrip('\n').rsplit(' ', 1)
        funcs = [re.sub(r'_\[k\]$', '', f) for f in stack.split(';')[1:]]
        up, down = set(), set()
        for i, f in enumerate(funcs):  # root first
            if f != sys.argv[3]:
                continue
            if i > 0 and funcs[i - 1] != f:
                up.add(funcs[i - 1])
            if i + 1 < len(funcs) and funcs[i + 1] != f:
                down.add(funcs[i + 1])
        for f in up:
            callers[f] += int(count)
        for f in down:
            callees[f] += int(count)
    for c in (callers, callees):
        top = c.most_common(2)
        if len(top) > 1 and top[0][1] == top[1][1]:
            sys.exit('tie: ' + repr(top))
        print('%.2f%% %s' % (100.0 * top[0][1] / n, top[0][0]))
    sys.exit(0)
best = max(self_, key=lambda k: (self_[k], total[k]))
tied = [k for k in self_ if (self_[k], total[k]) == (self_[best], total[best])]
if len(tied) > 1:
    sys.exit('tie: ' + repr(tied))
print('%.2f%% %s %s' % (100.0 * self_[best] / n, best[0], best[1]))
