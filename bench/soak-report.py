#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turns bench/soak's lines into a Markdown table (see bench/soak).

Usage: soak-report.py SOAK_TXT "LFR RECORD OPTIONS" [CLOCK]
"""
import re
import statistics
import sys


def kv(text):
    return {k: int(v) for k, v in re.findall(r'(\w+)=(\d+)', text)}


def main():
    rows = [kv(line) for line in open(sys.argv[1], encoding='utf-8', errors='replace')
            if line.startswith('soak ')]
    if len(rows) < 2:
        sys.exit('soak: fewer than two minutes measured')
    clock = sys.argv[3] if len(sys.argv) > 3 else ''
    last = rows[-1]['minute']
    print(f'The always-on recorder `lfr record -a --repository DIR {sys.argv[2]}` for {last} guest '
          f'minutes while processes come and go (a two-thread deepstack for 1 s every 15 s, '
          f'churn 50 8 every 10 minutes); {clock}.\n')
    print('| minute | VmRSS (MiB) | VmHWM (MiB) | recorder CPU (s) | threads | repository (MiB) '
          '| files | lfr.ko vmalloc (MiB) | heap | other arenas | other anonymous | files (MiB) |')
    print('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
    for r in rows:
        if r['minute'] % 5 and r is not rows[-1]:
            continue
        print(f'| {r["minute"]} | {r["rss_kb"] / 1024:.1f} | {r["hwm_kb"] / 1024:.1f} | '
              f'{r["recorder_ns"] / 1e9:.2f} | {r["threads"]} | {r["repo_kb"] / 1024:.1f} | '
              f'{r["repo_files"]} | {r["vmalloc_bytes"] / 2**20:.1f} | '
              + ' | '.join(f'{r[k] / 1024:.2f}' if k in r else '-'
                           for k in ('heap_kb', 'arenas_kb', 'anon_kb', 'file_kb')) + ' |')
    half = [r for r in rows if r['minute'] >= last / 2]
    first = [r for r in rows if 5 <= r['minute'] < last / 2]
    print()
    kinds = (('VmRSS', 'rss_kb'), ('of it the main heap', 'heap_kb'),
             ('of it the other arenas\' heaps', 'arenas_kb'),
             ('of it other anonymous memory', 'anon_kb'), ('of it files', 'file_kb'),
             ('lfr.ko vmalloc', 'vmalloc_bytes'))
    for name, key in kinds:
        if key not in rows[-1]:
            continue
        scale = 2**20 if key == 'vmalloc_bytes' else 1024
        unit = 'MiB'
        if first and half and all(key in r for r in first + half):
            a = [r[key] / scale for r in first]
            b = [r[key] / scale for r in half]
            print(f'- {name}: minutes 5-{last // 2 - 1}: {min(a):.1f}-{max(a):.1f} {unit} (median '
                  f'{statistics.median(a):.1f}); minutes {last // 2}-{last}: {min(b):.1f}-{max(b):.1f} '
                  f'{unit} (median {statistics.median(b):.1f}); last minus minute {last // 2}: '
                  f'{b[-1] - b[0]:+.2f} {unit}.')
    cpu = [(rows[i + 1]['recorder_ns'] - rows[i]['recorder_ns']) / 60e9 * 100
           for i in range(len(rows) - 1)]
    if cpu:
        print(f'- The recorder\'s CPU a minute, as a share of one CPU: median '
              f'{statistics.median(cpu):.3f} % ({min(cpu):.3f}-{max(cpu):.3f}).')


if __name__ == '__main__':
    main()
