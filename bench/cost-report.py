#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turns bench/cost's cost lines into a Markdown table of medians (see bench/cost).

Usage: cost-report.py COST_TXT
"""
import re
import statistics
import sys
from collections import defaultdict

from medians import fmt, med


def kv(text):
    return {k: v for k, v in re.findall(r'(\w+)=([^\s|]+)', text)}




def main():
    runs = []
    for line in open(sys.argv[1], encoding='utf-8', errors='replace'):
        if not line.startswith('cost '):
            continue
        parts = line.rstrip('\n').split(' | ')
        r = kv(parts[0])
        r['work'] = kv(parts[1]) if len(parts) > 1 else {}
        r['status'] = kv(parts[2]) if len(parts) > 2 else {}
        if r.get('rc') == '0' and 'rate' in r['work']:
            runs.append(r)
    none = defaultdict(list)
    for r in runs:
        if r['prof'] == 'none':
            none[r['wl']].append(float(r['work']['rate']))
    groups = defaultdict(list)
    for r in runs:
        if r['prof'] != 'none':
            groups[(r['wl'], int(r['hz']), r['prof'])].append(r)

    print('Medians of the runs of each configuration; "noise" is the spread (max-min)/median of the '
          'runs without a profiler, below which a slowdown says nothing.  Stacks are distinct stack '
          'walks (perf: SAMPLE records; lfr: USTACK records, one per walk).  CPU per stack: the '
          'work the workload lost (slowdown x wall time x threads) over the stacks delivered.\n')
    print('| workload | Hz | runs | noise | perf slowdown | lfr slowdown | lfr/perf | perf stacks/s | '
          'lfr stacks/s | perf µs CPU/stack | lfr µs CPU/stack | lfr/perf | perf B/stack | '
          'lfr B/stack | perf lost | lfr lost by reason |')
    print('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|')
    failed = 0
    for wl in sorted({k[0] for k in groups}):
        base = med(none[wl])
        noise = (max(none[wl]) - min(none[wl])) / base * 100 if base else None
        for hz in sorted({k[1] for k in groups if k[0] == wl}):
            row = {}
            for prof in ('perf', 'lfr'):
                rs = groups.get((wl, hz, prof), [])
                slow, sps, cps, bps, lost = [], [], [], [], []
                reasons = defaultdict(list)
                for r in rs:
                    w = r['work']
                    secs, threads = float(w['seconds']), int(w['threads'])
                    s = 1 - float(w['rate']) / base if base else None
                    if prof == 'perf':
                        stacks = int(r.get('perf_samples', 0))
                        lost.append(int(r.get('perf_lost', 0)))
                    else:
                        st = r['status']
                        stacks = int(st.get('records_ustack', 0))
                        n = 0
                        for k, v in st.items():
                            if k.startswith('lost_') and k != 'lost_aux_ring_full' and v.isdigit():
                                n += int(v)
                                reasons[k[5:]].append(int(v))
                        lost.append(n)
                    slow.append(s * 100 if s is not None else None)
                    sps.append(stacks / secs if stacks else None)
                    cps.append(s * secs * threads / stacks * 1e6 if s is not None and s > 0 and stacks else None)
                    bps.append(int(r['bytes']) / stacks if stacks and 'bytes' in r else None)
                row[prof] = dict(n=len(rs), slow=med(slow), sps=med(sps), cps=med(cps), bps=med(bps),
                                 lost=med(lost),
                                 reasons=', '.join(f'{k} {statistics.median(v):.0f}' for k, v in sorted(reasons.items())
                                                   if statistics.median(v) > 0) or '0')
                if not rs:
                    failed += 1
            p, l = row['perf'], row['lfr']
            ratio = l['slow'] / p['slow'] if p['slow'] and l['slow'] is not None and p['slow'] > 0 else None
            cratio = l['cps'] / p['cps'] if p['cps'] and l['cps'] else None
            print(f"| {wl} | {hz} | {min(p['n'], l['n'])} | {fmt(noise)}% | {fmt(p['slow'])}% | {fmt(l['slow'])}% | "
                  f"{fmt(ratio, '.2f')} | {fmt(p['sps'], '.0f')} | {fmt(l['sps'], '.0f')} | {fmt(p['cps'])} | "
                  f"{fmt(l['cps'])} | {fmt(cratio, '.2f')} | {fmt(p['bps'])} | {fmt(l['bps'])} | "
                  f"{fmt(p['lost'], '.0f')} | {l['reasons']} |")
    print()
    configs = {(k[0], k[1]) for k in groups}
    print(f"cost: {len(configs)} configurations, {failed} profiled runs missing")
    return 1 if failed or not groups else 0


if __name__ == '__main__':
    sys.exit(main())
