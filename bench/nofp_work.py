# SPDX-License-Identifier: GPL-2.0
"""What a run of tests/workloads/nofp did, weighed (bench/unwind, bench/ab)."""
import re

from medians import med


def read_runs(path):
    """The runs of PATH's "unwind" lines that exited 0, each a dict of its key=value fields."""
    runs = []
    for line in open(path, encoding='utf-8', errors='replace'):
        if line.startswith('unwind '):
            r = dict(re.findall(r'(\w+)=(\S+)', line))
            if r.get('rc') == '0':
                runs.append(r)
    return runs


def nofp_work(runs):
    """(work, base, noise): work(run) weighs a run's two threads' work, base is the median of
    the runs without a profiler (prof=none), noise the spread of theirs in per cent (None
    without them)."""
    none = [r for r in runs if r['prof'] == 'none']
    # What a run's two threads did, in instructions.  Under -icount the two vCPUs take turns
    # unevenly, and which thread runs on the faster one changes from run to run: without a
    # profiler a run did 41 sorts and 38 600 rounds of the chain, or 51 and 31 000.  Each
    # thread's work is its instructions over a fixed cost per unit, and the two threads' together
    # are the same in every run without a profiler, so the costs per compare (a) and per round
    # (b) come from those runs: a * compares + b * chain = 1, least squares (the runs agreed to
    # 0.05 %).  When their split hardly moved (no second equation), each thread's work relative
    # to its median, averaged, as before (2.4 % apart in one boot).
    nofp = [r for r in runs if 'chain' in r]
    sk = 'compares' if nofp and all('compares' in r for r in nofp) else 'sorts'
    xs = [int(r[sk]) for r in none]
    ys = [int(r['chain']) for r in none]
    sxx = sum(x * x for x in xs)
    syy = sum(y * y for y in ys)
    sxy = sum(x * y for x, y in zip(xs, ys))
    det = sxx * syy - sxy * sxy
    a = b = 0
    if len(none) > 1 and det and (max(xs) - min(xs)) > 0.02 * med(xs):
        a = (sum(xs) * syy - sum(ys) * sxy) / det
        b = (sum(ys) * sxx - sum(xs) * sxy) / det
    if a > 0 and b > 0:
        def work(r):
            return a * int(r[sk]) + b * int(r['chain'])
        ok = True
    else:
        base_s, base_c = med(xs), med(ys)

        def work(r):
            return int(r[sk]) / base_s + int(r['chain']) / base_c
        ok = bool(none and base_s and base_c)
    base = med([work(r) for r in none]) if ok else 0
    noise = None
    if ok and base:
        rel = [work(r) / base for r in none]
        noise = (max(rel) - min(rel)) * 100
    return work, base, noise
