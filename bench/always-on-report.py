#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turns bench/always-on's lines into a Markdown table of medians and ranges (see bench/always-on).

Usage: always-on-report.py ALWAYS_ON_TXT "LFR RECORD OPTIONS" [CLOCK]
"""
import re
import statistics
import sys

TARGET = {'first': 0.5, 'steady': 0.25}
NAME = {'first': 'first 10 s', 'steady': 'steady'}


def kv(text):
    return dict(re.findall(r'(\w+)=([^\s|]+)', text))


def fmt(xs, digits=3):
    if not xs:
        return 'n/a'
    m = statistics.median(xs)
    return f'{m:.{digits}f} % ({min(xs):.{digits}f}-{max(xs):.{digits}f})'


def main():
    rows = []
    for line in open(sys.argv[1], encoding='utf-8', errors='replace'):
        if not line.startswith('always-on '):
            continue
        head, _, work = line.rstrip('\n').partition(' | ')
        r = kv(head)
        r['w'] = kv(work)
        rows.append(r)
    if not rows:
        sys.exit('always-on: no complete runs')
    clock = sys.argv[3] if len(sys.argv) > 3 else ''
    runs = len({r['run'] for r in rows})

    def share(r, ns):  # of the whole machine during the window
        return 100 * ns / 1e9 / (float(r['secs_guest']) * int(r['cpus']))

    print(f'The always-on recorder `lfr record -a --repository DIR {sys.argv[2]}` while '
          '`deepstack 32 T 2` keeps both CPUs busy; '
          f'{runs} runs, medians with (min-max); {clock}.  Shares are of the whole machine '
          '(window seconds x CPUs).  Recorder: the sum of its threads\' schedstat run time (user '
          'and kernel); module: the session\'s irq_ns + work_ns + offcpu_probe_ns (timer interrupts, walks, '
          'the off-CPU probe at each switch: run in the switching thread\'s time, so counted '
          'twice where that thread is the recorder\'s).\n')
    print('| window | guest s | recorder | module | together | target | recorder (ticks) '
          '| VmRSS start -> end (MiB) |')
    print('|---|---:|---:|---:|---:|---:|---:|---:|')
    notes = []
    for w in ('first', 'steady'):
        rs = [r for r in rows if r['window'] == w]
        if not rs:
            continue
        rec = [share(r, int(r['recorder_ns'])) for r in rs]
        mod = [share(r, int(r['module_ns'])) for r in rs]
        tog = [a + b for a, b in zip(rec, mod)]
        ticks = [share(r, int(r['recorder_ticks']) * 1e7) for r in rs]
        secs = statistics.median(float(r['secs_guest']) for r in rs)
        rss0 = statistics.median(int(r['rss_start_kb']) for r in rs) / 1024
        rss1 = statistics.median(int(r['rss_end_kb']) for r in rs) / 1024
        rss = f'{rss1:.1f} at 10 s' if w == 'first' else f'{rss0:.1f} -> {rss1:.1f}'
        print(f'| {NAME[w]} | {secs:.1f} | {fmt(rec)} | {fmt(mod)} | {fmt(tog)} | '
              f'{TARGET[w]:.2f} % | {fmt(ticks, 2)} | {rss} |')
        for r in rs:
            if r['tids_start'] != '-':
                gone = set(r['tids_start'].split(',')) - set(r['tids_end'].split(','))
                if gone:
                    notes.append(f'run {r["run"]}, {NAME[w]}: threads {",".join(sorted(gone))} '
                                 'exited inside the window (their time after its start is missing '
                                 'from the schedstat sum)')
    # where the recorder's time goes: each thread's share, by name (the main thread: main)
    per = {}
    for w in ('first', 'steady'):
        for r in (r for r in rows if r['window'] == w and 'threads_end' in r):
            def parse(text):
                out, seen = {}, {}
                for item in filter(None, text.split(',')):
                    if item == '-':
                        continue
                    tid, comm, ns = item.split(':')
                    if tid == r['pid']:
                        name = 'main'
                    else:
                        seen[comm] = seen.get(comm, 0) + 1
                        name = comm if seen[comm] == 1 else f'{comm}#{seen[comm]}'
                    out[tid] = (name, int(ns))
                return out
            a, b = parse(r['threads_start']), parse(r['threads_end'])
            for tid, (name, ns) in b.items():
                d = ns - a.get(tid, (name, 0))[1]
                per.setdefault(name, {}).setdefault(w, []).append(share(r, d))
    if per:
        print('\nThe recorder\'s time by thread (median share of the machine, (min-max); the main '
              'thread is `main`):\n')
        print('| thread | first 10 s | steady |')
        print('|---|---:|---:|')
        for name in sorted(per, key=lambda n: -statistics.median(per[n].get('first', [0]))):
            print(f'| {name} | {fmt(per[name].get("first", []))} | '
                  f'{fmt(per[name].get("steady", []))} |')
    nthreads = [len(r['tids_end'].split(',')) for r in rows if r['window'] == 'steady']
    grow = [int(r['repo_bytes']) / float(r['run_secs']) / 1024 for r in rows
            if r['window'] == 'steady']
    print()
    if nthreads:
        print(f'Recorder threads at the end: {min(nthreads)}-{max(nthreads)}.  '
              f'Repository growth: {statistics.median(grow):.1f} KiB/s (median over the run).')
    first_rss = {r['run']: int(r['rss_end_kb']) for r in rows if r['window'] == 'first'}
    for r in rows:
        if r['window'] == 'steady' and r.get('rss_trace', '-') != '-':
            pts = [x.split(':') for x in r['rss_trace'].split(',') if x]
            trace = ', '.join(f'{t} s {int(kb) / 1024:.1f}' for t, kb in pts)
            mib = int(r['rss_start_kb']) / 1024
            end = int(r['rss_end_kb']) / 1024
            print(f'VmRSS (MiB) in run {r["run"]}: 10 s {first_rss.get(r["run"], 0) / 1024:.1f}, '
                  f'20 s {mib:.1f}, {trace}, end {end:.1f}.')
    for n in notes:
        print(f'- {n}')
    if not notes:
        print('No recorder thread exited inside a steady window (thread ids equal at both ends).')


if __name__ == '__main__':
    main()
