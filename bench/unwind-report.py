#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turns bench/unwind's lines into Markdown tables of medians (see bench/unwind).

Usage: unwind-report.py UNWIND_TXT
"""
import sys
from collections import defaultdict

from medians import fmt, med
from nofp_work import nofp_work, read_runs




def main():
    runs = read_runs(sys.argv[1])
    none = [r for r in runs if r['prof'] == 'none']
    work, base, noise = nofp_work(runs)
    print('Medians of %d runs without a profiler (noise: spread of their work, %s %%) and of each '
          'profiler.  Slowdown: work lost by both threads against the runs without a profiler.  '
          'Complete: samples in leaf with the exact 44-frame chain, samples in cmp with '
          '_start ... main <- libc <- cmp.\n' % (len(none), fmt(noise)))
    print('| profiler | Hz | runs | slowdown % | samples | leaf complete % | cmp complete % | '
          'bytes/sample | walk µs/stack |')
    print('|---|---:|---:|---:|---:|---:|---:|---:|---:|')
    groups = defaultdict(list)
    for r in runs:
        if r['prof'] != 'none':
            groups[(r['prof'], int(r['hz']))].append(r)
    for (prof, hz), rs in sorted(groups.items()):
        slow, samples, leaf, cmp, bps, walk = [], [], [], [], [], []
        for r in rs:
            if base and 'chain' in r:
                slow.append((1 - work(r) / base) * 100)
            n = int(r.get('perf_samples') or r.get('records_ustack') or 0)
            samples.append(n)
            if int(r.get('leaf', 0)):
                leaf.append(100 * int(r['leaf_ok']) / int(r['leaf']))
            if int(r.get('cmp', 0)):
                cmp.append(100 * int(r['cmp_ok']) / int(r['cmp']))
            if n and 'bytes' in r:
                bps.append(int(r['bytes']) / n)
            if int(r.get('work_count', 0)):
                walk.append(int(r['work_ns']) / int(r['work_count']) / 1000)
        print('| %s | %d | %d | %s | %s | %s | %s | %s | %s |' % (
            prof, hz, len(rs), fmt(med(slow)), fmt(med(samples), '.0f'), fmt(med(leaf), '.2f'),
            fmt(med(cmp), '.2f'), fmt(med(bps)), fmt(med(walk), '.2f')))
    cfi = [int(r['work_ns']) / int(r['work_count']) / 1000 for r in runs
           if r['prof'] == 'deep32-cfi' and int(r.get('work_count', 0))]
    fp = [int(r['work_ns']) / int(r['work_count']) / 1000 for r in runs
          if r['prof'] == 'deep32-fp' and int(r.get('work_count', 0))]
    if cfi and fp:
        print('\nThe walk on deepstack 32 (frame pointers, so both give the same 32-frame stacks): '
              '%s µs per stack with unwind tables, %s µs with frame pointers only (medians of %d '
              'and %d runs): %s x.' % (fmt(med(cfi), '.2f'), fmt(med(fp), '.2f'), len(cfi),
                                       len(fp), fmt(med(cfi) / med(fp), '.2f')))


if __name__ == '__main__':
    main()
