#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# expect.py COLLAPSED: from `lfr report -f collapsed --threads` (every sample, kernel frames with
# _[k]), what `lfr top -k -w 0` must show first: the (function, thread) with the most self samples
# (ties broken by the most total samples), printed as "SELF% FUNCTION TID" with lfr top's rounding.
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
best = max(self_, key=lambda k: (self_[k], total[k]))
tied = [k for k in self_ if (self_[k], total[k]) == (self_[best], total[best])]
if len(tied) > 1:
    sys.exit('tie: ' + repr(tied))
print('%.2f%% %s %s' % (100.0 * self_[best] / n, best[0], best[1]))
