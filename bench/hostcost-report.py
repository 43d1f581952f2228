#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turns bench/hostcost's lines into a Markdown table of medians (see bench/hostcost).

Usage: hostcost-report.py HOSTCOST_TXT
"""
import re
import sys
from collections import defaultdict

from medians import fmt, med


def main():
    runs = defaultdict(dict)
    for line in open(sys.argv[1], encoding='utf-8', errors='replace'):
        if not line.startswith('hostcost cfg='):
            continue
        kv = dict(re.findall(r'(\w+)=([^\s]+)', line))
        runs[(kv.pop('cfg'), int(kv.pop('run')))].update(kv)
    by = defaultdict(list)
    for (cfg, _), kv in runs.items():
        by[cfg].append(kv)
    print('| profiler | runs | host CPUs busy | guest code % | host kernel % | QEMU % | '
          'libraries % | outside guest code, CPU s per s | guest timer interrupts/s | '
          'workload ops/s |')
    print('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
    for cfg in ('none', 'perf', 'lfr'):
        rs = by.get(cfg, [])
        if not rs:
            continue

        def m(key, f=float):
            return med(f(r[key]) for r in rs if key in r)

        busy = med(int(r['samples']) / 999 / int(r['window'])
                   for r in rs if 'samples' in r)
        jit = m('jit')
        outside = busy * (100 - jit) / 100 if busy is not None and jit is not None else None
        print('| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s |' % (
            cfg, len(rs), fmt(busy, '.2f'), fmt(jit), fmt(m('kernel')), fmt(m('qemu')),
            fmt(m('libs')), fmt(outside, '.2f'),
            fmt(med(int(r['loc']) / float(r['seconds']) for r in rs if 'loc' in r), '.0f'),
            fmt(m('rate'), '.0f')))


if __name__ == '__main__':
    main()
