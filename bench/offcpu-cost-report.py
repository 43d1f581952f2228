# SPDX-License-Identifier: GPL-2.0
"""bench/offcpu-cost's table from the guest's "offcpu-cost" lines: medians per mode of the
workload's time, the events recorded (lfr's: the intervals written with their stacks), and
the slowdown per event against the runs without a profiler.  offcpu-cost-report.py FILE CLOCK"""
import re
import sys

from medians import fmt, med

MODES = [("none", "no profiler"),
         ("perf", "perf record -e sched:sched_switch -g"),
         ("lfr-1us", "lfr record --off-cpu=1us"),
         ("lfr-1ms", "lfr record --off-cpu (1 ms: counted only)"),
         ("perf-cpu", "perf record -e cpu-clock -F 1 -g (no off-CPU)"),
         ("lfr-cpu", "lfr record -F 1 (no off-CPU)"),
         ("lfr-a", "lfr record -a --off-cpu=1us"),
         ("none-idle", "no profiler, beside the sleepers"),
         ("lfr-a-idle", "lfr record -a --off-cpu=1us, beside the sleepers")]
# the runs without a profiler each mode is measured against
BASE = {"none-idle": "none", "lfr-a-idle": "none-idle"}


def main():
    runs = {}
    for line in open(sys.argv[1]):
        kv = dict(re.findall(r"(\w+)=(\S+)", line))
        if kv.get("rc") != "0" or "ns" not in kv:
            continue
        runs.setdefault(kv["mode"], []).append(kv)
    bases = {m: med([int(r["ns"]) for r in runs.get(m, [])]) for m in ("none", "none-idle")}
    sleepers = next((r["sleepers"] for r in runs.get("none-idle", []) if "sleepers" in r), None)
    rounds = next((int(r["rounds"]) for rs in runs.values() for r in rs), 0)
    print(f"# bench/offcpu-cost: pingpong {rounds} round trips ({sys.argv[2]})\n")
    if sleepers:
        print(f"sleepers: {sleepers} threads asleep beside the runs so marked\n")
    print("| profiler | runs | time ms (median, min-max) | events | short | lost | throttled "
          "| kernel stacks cached | bytes/event | slowdown | ns per event "
          "| recorder + module ns per event |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for mode, label in MODES:
        rs = runs.get(mode, [])
        if not rs:
            continue
        base = bases[BASE.get(mode, "none")]
        own = med([(int(r["recorder_ns"]) + int(r["module_ns"])) / int(r["events"]) for r in rs
                   if r.get("recorder_ns") and r.get("events") and int(r["events"])])
        ns = [int(r["ns"]) for r in rs]
        t = med(ns)
        ev = med([int(r["events"]) for r in rs if r.get("events")])
        short = med([int(r["short"]) for r in rs if r.get("short", "").isdigit()])
        lost = med([int(r["lost"]) for r in rs if r.get("lost", "").isdigit()])
        thr = med([int(r["throttled"]) for r in rs if r.get("throttled", "").isdigit()])
        kc = med([int(r["kcached"]) for r in rs if r.get("kcached", "").isdigit()])
        by = med([int(r["bytes"]) / int(r["events"]) for r in rs
                  if r.get("bytes") and r.get("events") and int(r["events"])])
        bare = mode in ("none", "none-idle")
        slow = 100.0 * (t - base) / base if base and not bare else None
        per = (t - base) / ev if base and ev and not bare else None
        print(f"| {label} | {len(rs)} | {t / 1e6:.1f} ({min(ns) / 1e6:.1f}-{max(ns) / 1e6:.1f}) "
              f"| {fmt(ev, '.0f')} | {fmt(short, '.0f')} | {fmt(lost, '.0f')} | {fmt(thr, '.0f')} "
              f"| {fmt(kc, '.0f')} | {fmt(by, '.0f')} "
              f"| {fmt(slow, '+.1f')}{'' if slow is None else ' %'} | {fmt(per, '.0f')} "
              f"| {fmt(own, '.0f')} |")


if __name__ == "__main__":
    main()
