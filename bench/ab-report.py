#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turns bench/ab's lines into a Markdown table (see bench/ab).

Usage: ab-report.py AB_TXT SECONDS [DEEP]
"""
import sys

from medians import fmt, med
from nofp_work import nofp_work, read_runs


# Guest instructions per second on one vCPU under -icount shift=1 (2 ns each).
INSNS_PER_S = 5e8


def deep(runs, secs):
    """deepstack 40 on one vCPU: its rate against the median of the runs alone; the work lost
    in guest instructions over the stacks delivered."""
    alone = [float(r['rate']) for r in runs if r['prof'] == 'none' and 'rate' in r]
    base = med(alone)
    print('Runs without a profiler: %d (rates %s ops/s).  Cost per stack: the work lost, in '
          'guest instructions (5e8 a second on the one vCPU), over the stacks delivered.\n'
          % (len(alone), ', '.join('%.1f' % a for a in alone)))
    print('| build | runs | rate, ops/s (median) | range | slowdown % | stacks | instructions '
          'per stack (median) | range |')
    print('|---|---:|---:|---:|---:|---:|---:|---:|')
    for prof in ('A', 'B'):
        rs = [r for r in runs if r['prof'] == prof and 'rate' in r]
        rates = [float(r['rate']) for r in rs]
        cost = [(1 - float(r['rate']) / base) * float(r['seconds']) * INSNS_PER_S /
                int(r['records_ustack']) for r in rs if int(r.get('records_ustack', 0))]
        print('| %s | %d | %s | %s-%s | %s | %s | %s | %s-%s |' % (
            prof, len(rs), fmt(med(rates), '.1f'), fmt(min(rates), '.1f'),
            fmt(max(rates), '.1f'), fmt((1 - med(rates) / base) * 100, '.2f'),
            fmt(med([int(r.get('records_ustack', 0)) for r in rs]), '.0f'),
            fmt(med(cost), '.0f'), fmt(min(cost), '.0f'), fmt(max(cost), '.0f')))


def main():
    runs = read_runs(sys.argv[1])
    secs = float(sys.argv[2])
    if len(sys.argv) > 3 and sys.argv[3] == '1':
        deep(runs, secs)
        return
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
