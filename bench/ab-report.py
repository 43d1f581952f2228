#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turns bench/ab's lines into a Markdown table (see bench/ab).

Usage: ab-report.py AB_TXT SECONDS
"""
import sys

from medians import fmt, med
from nofp_work import nofp_work, read_runs


def main():
    runs = read_runs(sys.argv[1])
    secs = float(sys.argv[2])
    work, base, noise = nofp_work(runs)
    print('Runs without a profiler: %d (spread of their work %s %%).  Slowdown: the work both '
          'threads lost; µs per stack: that loss, slowdown x 2 threads x %g s, over the stacks '
          'delivered.\n' % (sum(r['prof'] == 'none' for r in runs), fmt(noise, '.2f'), secs))
    print('| build | runs | slowdown % (median) | range | stacks | µs per stack |')
    print('|---|---:|---:|---:|---:|---:|')
    for prof in ('A', 'B'):
        rs = [r for r in runs if r['prof'] == prof]
        slow = [(1 - work(r) / base) * 100 for r in rs if base]
        stacks = med([int(r.get('records_ustack', 0)) for r in rs])
        us = med(slow) / 100 * 2 * secs * 1e6 / stacks if slow and stacks else None
        rng = '%s-%s' % (fmt(min(slow), '.2f'), fmt(max(slow), '.2f')) if slow else '—'
        print('| %s | %d | %s | %s | %s | %s |' % (prof, len(rs), fmt(med(slow), '.2f'), rng,
                                                   fmt(stacks, '.0f'), fmt(us)))


if __name__ == '__main__':
    main()
