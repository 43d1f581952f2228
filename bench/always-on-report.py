#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turns bench/always-on's lines into Markdown tables of medians (see bench/always-on).

Usage: always-on-report.py ALWAYS_ON_TXT "LFR RECORD OPTIONS"
"""
import re
import statistics
import sys


def kv(text):
    return dict(re.findall(r'(\w+)=([^\s|]+)', text))


def main():
    runs = []
    for line in open(sys.argv[1], encoding='utf-8', errors='replace'):
        if not line.startswith('always-on '):
            continue
        head, _, work = line.rstrip('\n').partition(' | ')
        r = kv(head)
        r['w'] = kv(work)
        if 'rate' in r['w']:
            runs.append(r)
    by = {m: [r for r in runs if r['mode'] == m] for m in ('none', 'on', 'adhoc', 'both')}
    if not by['none'] or not by['on']:
        sys.exit('always-on: no complete runs')
    none = [float(r['w']['rate']) for r in by['none']]
    base = statistics.median(none)
    noise = (max(none) - min(none)) / base * 100

    def share(r, cpu_s):  # of the whole machine during the workload
        return 100 * cpu_s / (float(r['w']['seconds']) * int(r['cpus']))

    def med(mode, f):
        xs = [f(r) for r in by[mode]]
        return statistics.median(xs) if xs else float('nan')

    slow = {m: med(m, lambda r: 100 * (1 - float(r['w']['rate']) / base)) for m in by}
    rec = {m: med(m, lambda r: share(r, int(r['recorder_cpu_ticks']) / 100)) for m in by}
    mod_on = {m: med(m, lambda r: share(r, int(r['always_module_ns']) / 1e9)) for m in by}
    mod_ad = {m: med(m, lambda r: share(r, int(r['adhoc_module_ns']) / 1e9)) for m in by}
    grow = med('on', lambda r: int(r['repo_bytes']) / float(r['w']['seconds']) / 1024)
    print(f'The always-on recorder `lfr record -a --repository DIR {sys.argv[2]}` and an ad-hoc '
          '`lfr record -F 999 -- deepstack 32 S 2` (two threads keeping both CPUs busy), alone '
          f'and together; medians of {len(by["none"])} rotating runs of each.  Shares are of the '
          'whole machine (seconds x CPUs) while the workload ran; the module\'s CPU is its timer '
          'interrupts and stack walks (irq_ns + work_ns of the session), measured.\n')
    print('| running | slowdown | always-on recorder CPU | always-on module CPU | ad-hoc module CPU |')
    print('|---|---:|---:|---:|---:|')
    names = {'none': 'workload alone (noise floor: %.1f %%)' % noise, 'on': 'always-on',
             'adhoc': 'ad-hoc at 999 Hz', 'both': 'both (the threads sampled by two sessions)'}
    for m in ('none', 'on', 'adhoc', 'both'):
        if by[m]:
            print(f'| {names[m]} | {slow[m]:+.2f} % | {rec[m]:.2f} % | {mod_on[m]:.3f} % | '
                  f'{mod_ad[m]:.3f} % |')
    print(f'\nThe always-on repository grew by {grow:.1f} KiB/s.')
    if by['both'] and by['adhoc']:
        apart = mod_on['on'] + mod_ad['adhoc']
        together = mod_on['both'] + mod_ad['both']
        print(f'Two sessions on the same threads: module CPU {together:.3f} % together against '
              f'{apart:.3f} % apart (always-on alone + ad-hoc alone); slowdown '
              f'{slow["both"]:+.2f} % together against {slow["on"] + slow["adhoc"]:+.2f} % apart.')


if __name__ == '__main__':
    main()
