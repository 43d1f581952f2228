#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turns bench/kmod-compare's kmod lines into a Markdown table of medians.

Usage: kmod-compare-report.py KMOD_TXT
"""
import re
import sys
from collections import defaultdict

from medians import fmt, med


def kv(text):
    return dict(re.findall(r'(\w+)=([^\s|]+)', text))


def main():
    alone, groups = [], defaultdict(list)
    for line in open(sys.argv[1], encoding='utf-8', errors='replace'):
        if not line.startswith('kmod '):
            continue
        r = kv(line)
        if 'rate' not in r or r.get('rc', '0') != '0':
            continue
        if r['mod'] == 'none':
            alone.append(float(r['rate']))
        else:
            groups[(r['mod'], int(r['hz']), r['walk'])].append(r)
    base = med(alone)
    noise = (max(alone) - min(alone)) / base * 100 if alone else None
    print('Workload alone: %d runs, median %s ops/s, spread %s %%.' %
          (len(alone), fmt(base, '.0f'), fmt(noise)))
    print()
    print('| module | Hz | walk | runs | ops/s | slowdown % | walk µs/stack | '
          'stacks/s | ticks committed | missed |')
    print('|---|---:|---|---:|---:|---:|---:|---:|---:|---:|')
    for (mod, hz, walk), rs in sorted(groups.items(),
                                      key=lambda k: (k[0][1], k[0][2], k[0][0])):
        rate = med(float(r['rate']) for r in rs)
        slow = (base / rate - 1) * 100 if base and rate else None
        per = med(int(r['work_ns']) / int(r['work_count']) / 1000
                  for r in rs if int(r.get('work_count', 0)))
        secs = med(float(r['seconds']) for r in rs)
        stacks = med(int(r.get('records_ustack', 0)) for r in rs)
        print('| %s | %d | %s | %d | %s | %s | %s | %s | %s | %s |' % (
            mod, hz, walk, len(rs), fmt(rate, '.0f'), fmt(slow), fmt(per, '.2f'),
            fmt(stacks / secs if stacks is not None and secs else None, '.0f'),
            fmt(med(int(r.get('ticks_committed', 0)) for r in rs), '.0f'),
            fmt(med(int(r.get('lost_missed', 0)) for r in rs), '.0f')))


if __name__ == '__main__':
    main()
