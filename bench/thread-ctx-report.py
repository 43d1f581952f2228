#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turns bench/thread-ctx's lines into a Markdown table (see bench/thread-ctx).

Usage: thread-ctx-report.py THREAD_CTX_TXT
"""
import sys

from medians import fmt, med


def read(path):
    runs = []
    for line in open(path):
        f = dict(kv.split('=', 1) for kv in line.split()[1:] if '=' in kv)
        if f.get('rc') == '0' and int(f.get('work_count', 0)):
            runs.append(f)
    return runs


def main():
    runs = read(sys.argv[1])
    print('Walk time: work_ns / work_count of each run (guest ns under -icount: 2 per '
          'instruction); instructions added: the difference of the medians / 2.\n')
    print('| workload | thread contexts | runs | ns per walk (median) | range | walks | '
          'walks with a context | instructions added per walk |')
    print('|---|---|---:|---:|---:|---:|---:|---:|')
    for w in dict.fromkeys(r['workload'] for r in runs):
        per = {}
        for mode in ('off', 'on'):
            rs = [r for r in runs if r['workload'] == w and r['mode'] == mode]
            ns = [int(r['work_ns']) / int(r['work_count']) for r in rs]
            per[mode] = med(ns) if ns else None
            walks = med([int(r['work_count']) for r in rs]) if rs else None
            ctx = med([int(r.get('ctx', 0)) for r in rs]) if rs else None
            added = ((per['on'] - per['off']) / 2
                     if mode == 'on' and per['on'] is not None and per['off'] is not None
                     else None)
            rng = '%s-%s' % (fmt(min(ns), '.0f'), fmt(max(ns), '.0f')) if ns else '—'
            print('| %s | %s | %d | %s | %s | %s | %s | %s |' % (
                w, mode, len(rs), fmt(per[mode], '.0f'), rng, fmt(walks, '.0f'),
                fmt(ctx, '.0f'), fmt(added, '.0f') if added is not None else ''))


if __name__ == '__main__':
    main()
