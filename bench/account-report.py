#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench/account's tables: lfr's (and perf's) slowdown of deepstack, per delivered stack, in guest
instructions, split into parts by the guest's cpu-clock profile (see bench/account).

Usage: account-report.py RUNS_TXT SAMPLES_DIR WARM_SECONDS HZ PROFILER_HZ [WORKLOAD]
"""
import math
import re
import statistics
import sys
from collections import Counter, defaultdict

NS = 5e8  # guest instructions per second under -icount shift=1 (2 ns each)
LATE_NS = 400  # a sample this late was due while interrupts were off
PERIOD = 50007
COMM = 'deepstack'  # the workload's threads' name (deepstack-nofp for WORKLOAD nofp)
SOFTIRQ = {'__do_softirq', '__irq_exit_rcu', 'irq_exit_rcu', 'do_softirq', 'run_ksoftirqd'}

PARTS = [
    ('irq', "timer interrupt (lfr's counter irq_ns; interrupts off, never sampled)"),
    ('tick', "the rest of each timer interrupt: entry, exit, hrtimer_interrupt, re-arming "
             "(bench/nulltick's loss per expiry; interrupts off, never sampled)"),
    ('work', 'task_work: walk and commit (lfr_work_fn and what it calls)'),
    ('thread', 'rest of kernel in the sampled threads (interrupt return, task_work entry, scheduling)'),
    ('rec_user', 'recorder process, user space'),
    ('rec_kernel', 'recorder process, kernel (by system call, else function)'),
    ('clear', 'page clearing (clear_page_*: rep stos, counted per byte), any process'),
    ('fault', 'page faults (outside clearing), any process but the recorder'),
    ('softirq', 'softirq, RCU, timers (any context), ksoftirqd, rcu threads'),
    ('other', 'other processes and kernel threads'),
    ('idle', 'idle'),
    ('wl_other', "the workload's user code outside leaf()"),
]


def kv(text):
    return dict(re.findall(r'(\w+)=([^\s|]+)', text))


def read_runs(path):
    runs = {}
    for line in open(path, encoding='utf-8', errors='replace'):
        if not line.startswith('account '):
            continue
        parts = line.rstrip('\n').split(' | ')
        r = kv(parts[0])
        r['work'] = kv(parts[1]) if len(parts) > 1 else {}
        r['status'] = kv(parts[2]) if len(parts) > 2 else {}
        runs.setdefault((r['cfg'], int(r['secs']), int(r['profiled'])), []).append(r)
    return runs


def stacks(r):
    if r['cfg'] == 'perf':
        return int(r.get('perf_samples', 0))
    if r['cfg'] == 'null':
        return int(r.get('null_ticks', 0))
    return int(r['status'].get('records_ustack', 0))


def classify(comm, sym, chain):
    """(part, detail) of one sample; part None for the profiler's own."""
    if comm.startswith('ld-linux'):
        return None, comm
    ch = set(chain)
    if sym.startswith('clear_page') or any(s.startswith('clear_page') for s in chain):
        return 'clear', comm
    recorder = comm == 'lfr' or comm.startswith('lfr-') or comm == 'perf-rec'
    who = comm  # the recorder's thread: lfr (reading), lfr-naming, lfr-unwind, ...; perf-rec
    if comm == COMM:
        if not chain:
            return ('wl', sym) if sym == 'leaf' else ('wl_other', sym)
        if 'lfr_work_fn' in ch:
            return 'work', sym
        if ch & SOFTIRQ:
            return 'softirq', sym
        if 'exc_page_fault' in ch:
            return 'fault', sym
        return 'thread', sym
    if recorder:
        if not chain:
            return 'rec_user', f'{who}: {sym}'
        if ch & SOFTIRQ:
            return 'softirq', sym
        sysc = [s for s in chain if s.startswith('__x64_sys_') or s.startswith('__do_sys_')]
        if sysc:
            return 'rec_kernel', f"{who}: {sysc[-1].replace('__x64_sys_', 'sys_').replace('__do_sys_', 'sys_')}"
        if 'exc_page_fault' in ch:
            return 'rec_kernel', f'{who}: page fault'
        return 'rec_kernel', f'{who}: {sym}'
    if ch & SOFTIRQ or comm.startswith('ksoftirqd') or comm.startswith('rcu'):
        return 'softirq', sym
    if comm.startswith('swapper'):
        return 'idle', sym
    if 'exc_page_fault' in ch:
        return 'fault', comm
    return 'other', re.sub(r'[/:].*', '', comm)


def profile(d, cfg, warm, secs):
    syms = [l.split() for l in open(f'{d}/sym-{cfg}.txt', encoding='utf-8', errors='replace')]
    chains = [l.split() for l in open(f'{d}/chain-{cfg}.txt', encoding='utf-8', errors='replace')]
    if len(syms) != len(chains):
        raise SystemExit(f'account: {cfg}: {len(syms)} samples against {len(chains)} call chains')
    times = [float(s[0].rstrip(':')) for s in syms if len(s) >= 3 and s[1] == COMM]
    # from WARM s after the workload's first sample to 10 ms before its alarm: not the threads' exit
    t0, t1 = times[0] + warm, min(times[-1], times[0] + secs - 0.01)
    # How late each sample came after its due time on the profiler's grid (its hrtimer is forwarded
    # by whole periods), against the least lateness of its neighbours: a sample due while
    # interrupts were off is taken where they come back on, late by the rest of that code.
    ns = [int(s[0].rstrip(':').replace('.', '')) for s in syms]
    res = [t - ns[0] - round((t - ns[0]) / PERIOD) * PERIOD for t in ns]
    late = [res[i] - min(res[max(0, i - 200):i + 200]) for i in range(len(res))]
    parts, details, prof, n, late_leaf = Counter(), defaultdict(Counter), 0, 0, 0
    for i, (s, c) in enumerate(zip(syms, chains)):
        t = float(s[0].rstrip(':'))
        if t != float(c[0].rstrip(':')):
            raise SystemExit(f'account: {cfg}: the two passes disagree at {s[0]}')
        if t < t0 or t > t1 or len(s) < 3:
            continue
        part, detail = classify(s[1], s[2], c[1:])
        if part is None:
            prof += 1
            continue
        n += 1
        parts[part] += 1
        late_leaf += part == 'wl' and late[i] >= LATE_NS
        details[part][detail] += 1
    return dict(parts=parts, details=details, n=n, prof=prof, secs=t1 - t0, late_leaf=late_leaf)


def secs_of(r):
    """deepstack's seconds to the microsecond: printed to the ms, its rate (ops / seconds) to 0.1"""
    w = r['work']
    return int(w['ops']) / float(w['rate']) if float(w['rate']) else float(w['seconds'])


def lfr_ticks_note(st, whole):
    return f"lfr's expiries per stack {int(st.get('irq_count', 0)) / max(1, stacks(whole)):.3f}"


def fmt(x, spec='.0f'):
    return '—' if x is None else format(x, spec).replace(',', ' ')


def main():
    runs = read_runs(sys.argv[1])
    d, warm, hz = sys.argv[2], float(sys.argv[3]), sys.argv[4]
    global PERIOD, COMM
    PERIOD = int(1e9 / int(sys.argv[5]))
    workload = sys.argv[6] if len(sys.argv) > 6 else 'deep'
    COMM = 'deepstack-nofp' if workload == 'nofp' else 'deepstack'
    perf_title = 'perf record -e cpu-clock --call-graph dwarf' if workload == 'nofp' else 'perf record -e cpu-clock -g'
    secs = max(k[1] for k in runs)
    warm_s = min(k[1] for k in runs)

    def windows(cfg):
        """(work, stacks) per second from WARM to SECS in each pair of runs (the difference of its
        two runs).  Over deepstack's own seconds: its alarm stops the thread that takes the signal,
        the other works on until its time slice ends (one CPU), a few ms more or less from run to
        run."""
        out = []
        for a, b in zip(runs[(cfg, warm_s, 0)], runs[(cfg, secs, 0)]):
            dt = secs_of(b) - secs_of(a)
            out.append(((int(b['work']['ops']) - int(a['work']['ops'])) / dt, (stacks(b) - stacks(a)) / dt))
        return out

    def steady(cfg):
        """the median of the pairs' work per second and, but alone, of their stacks per second"""
        w = windows(cfg)
        return (statistics.median(r for r, _ in w),
                statistics.median(sr for _, sr in w) if cfg != 'none' else None)

    def window_costs(cfg):
        """each pair's own window: its loss per stack against the median alone"""
        return [(1 - r / base_rate) * NS / sr for r, sr in windows(cfg)]

    base_rate, _ = steady('none')
    base_whole = statistics.median(float(r['work']['rate']) for r in runs[('none', secs, 0)])
    alone = [int(r['work']['ops']) for r in runs[('none', secs, 0)]]
    alone_w = [int(r['work']['ops']) for r in runs[('none', warm_s, 0)]]
    pbase = profile(d, 'none', warm, secs)
    pb_rate = float(runs[('none', secs, 1)][0]['work']['rate'])
    print(f"alone: ops {' '.join(map(str, alone))} in {secs} s, {' '.join(map(str, alone_w))} in {warm_s} s "
          f"(rates {' '.join(r['work']['rate'] for r in runs[('none', secs, 0)])}); "
          f"{base_rate:.1f} ops/s in the window ({base_whole:.1f} over the whole run), "
          f"{base_rate * 36869 / NS * 100:.2f} % of the CPU at 36 869 instructions per op (leaf's loop: 4096 x 9 + 5); "
          f"the profiler costs it {100 * (1 - pb_rate / base_whole):.1f} % "
          f"({100 * pbase['prof'] / (pbase['n'] + pbase['prof']):.1f} % of the samples in its own process)")
    null_tick = None
    if ('null', secs, 0) in runs and all(stacks(r) for r in runs[('null', secs, 0)]):
        nrate, ntrate = steady('null')
        null_tick = (1 - nrate / base_rate) * NS / ntrate
        print(f"beside bench/nulltick (a timer interrupt at {hz} Hz that does nothing): {ntrate:.1f} expiries/s, "
              f"slowdown {100 * (1 - nrate / base_rate):.3f} % in the window, {null_tick:.0f} instructions per expiry "
              f"(pairs: {len(runs[('null', secs, 0)])})")
    print()
    titles = {'lfr': 'lfr record (default unwinding)', 'lfrfp': 'lfr record --call-graph fp',
              'perf': perf_title}
    for cfg in ('lfr', 'lfrfp', 'perf'):
        if (cfg, secs, 0) not in runs or (cfg, secs, 1) not in runs:
            continue
        rate, srate = steady(cfg)
        whole = runs[(cfg, secs, 0)][0]
        measured = (1 - rate / base_rate) * NS / srate
        measured_whole = statistics.median(
            (1 - float(w['work']['rate']) / base_whole) * NS / (stacks(w) / float(w['work']['seconds']))
            for w in runs[(cfg, secs, 0)])
        p = profile(d, cfg, warm, secs)
        rows = {}
        err2 = 0.0
        for key, _ in PARTS:
            if key in ('irq', 'tick'):
                continue
            fx, fb = p['parts'][key] / p['n'], pbase['parts'][key] / pbase['n']
            rows[key] = (fx - fb) * NS / srate
        fx, fb = p['parts']['wl'] / p['n'], pbase['parts']['wl'] / pbase['n']
        err2 = fx * (1 - fx) / p['n'] + fb * (1 - fb) / pbase['n']
        sd = math.sqrt(err2) * NS / srate
        profile_slow = (fb - fx) * NS / srate
        st = whole['status']
        if cfg.startswith('lfr'):
            rows['irq'] = int(st.get('irq_ns', 0)) / 2 / stacks(whole)
            walk = int(st.get('work_ns', 0)) / 2 / stacks(whole)
            per_stack = int(st.get('irq_count', 0)) / stacks(whole)
        else:
            rows['irq'] = None
            walk = None
            per_stack = 1.0  # perf's cpu-clock: one hrtimer expiry per sample
        rows['tick'] = null_tick * per_stack if null_tick is not None else None
        total = sum(v for v in rows.values() if v is not None)
        print(f"### {titles[cfg]} -F {hz}: {srate:.1f} stacks/s, slowdown {100 * (1 - rate / base_rate):.2f} % "
              f"in the window {warm_s}-{secs} s (profile: {warm_s}-{secs - 0.01:g} s); per run "
              f"{' '.join(fmt(v) for v in window_costs(cfg))} instructions per stack")
        print()
        print('| part | instructions per stack | share of measured |')
        print('|---|---:|---:|')
        for key, name in PARTS:
            v = rows.get(key)
            if v is None:
                if key == 'irq' and cfg == 'perf':
                    print(f'| {"perf: its sample in the interrupt (interrupts off, never sampled)"} | — | — |')
                continue
            if key in ('idle', 'wl_other', 'other') and abs(v) < 5:
                continue
            print(f'| {name} | {fmt(v)} | {fmt(100 * v / measured, ".1f")} % |')
            if key in ('rec_user', 'rec_kernel', 'work', 'thread', 'other', 'clear'):
                det = p['details'][key]
                bdet = pbase['details'][key]
                items = sorted(det.items(), key=lambda kv_: -kv_[1])
                for name2, c in items[:6 if key.startswith('rec') else 4]:
                    v2 = (c / p['n'] - bdet.get(name2, 0) / pbase['n']) * NS / srate
                    if abs(v2) < 10:
                        continue
                    print(f'| &nbsp;&nbsp;{name2} | {fmt(v2)} | {fmt(100 * v2 / measured, ".1f")} % |')
        print(f'| **sum** | **{fmt(total)}** | **{fmt(100 * total / measured, ".1f")} %** |')
        print(f'| **measured** (window {warm_s}-{secs} s, without the profiler) | **{fmt(measured)}** | 100 % |')
        print(f'| difference (sum - measured) | {fmt(total - measured)} | **{fmt(100 * (total - measured) / measured, "+.1f")} %** |')
        print()
        print(f'measured over the whole run: {fmt(measured_whole)} instructions per stack; the profile\'s own '
              f'view (the workload\'s share of the samples, less lfr\'s interrupt) {fmt(profile_slow)} +- {fmt(sd)}; '
              f'samples in the window {p["n"]} ({p["prof"]} of the profiler\'s own not counted), '
              f'alone {pbase["n"]}' + (f'; lfr\'s walk counter (work_ns) {fmt(walk)} per stack' if walk else ''))
        if cfg == 'perf':
            print("perf takes its sample and copies the call chain in its timer interrupt, with interrupts off: never "
                  "sampled, its cost is in the difference; the samples due meanwhile come late (not counted here: "
                  "perf's own timers make the grid's lateness no measure of time)")
        else:
            late = (p['late_leaf'] / p['n'] - pbase['late_leaf'] / pbase['n']) * NS / srate
            intr = rows['irq'] + (rows['tick'] or 0)
            print(f"cross-check, interrupts off charged to the workload: leaf() samples at least {LATE_NS} ns late "
                  f"on the profiler's grid, beyond the run alone: {fmt(late)} instructions per stack "
                  f"({p['late_leaf']} samples against {pbase['late_leaf']}), against the two interrupt rows' "
                  f"{fmt(intr)} ({lfr_ticks_note(st, whole)})")
        print()


if __name__ == '__main__':
    main()
