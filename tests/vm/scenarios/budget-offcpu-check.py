#!/usr/bin/env python3
# Checks the dropped intervals of an --off-cpu recording made under a CPU budget
# (budget-offcpu.sh): every lfr.OffCpu event carries its thread's intervals so far that got no
# event (droppedCount, droppedDuration), so that the thread's time off the CPU is all accounted for.
#
#   budget-offcpu-check.py FILE.jfr --summary lfr-record-stderr [--min-ns NS] [--expect-dropped]
#                          [--jfr-tool JFR]
#
# Checks, with the JDK's jfr reading the file:
#   - per thread, in time order, droppedCount and droppedDuration never go down;
#   - every dropped interval is at least the minimum: droppedDuration >= droppedCount x NS;
#   - the threads' last counts summed are at most what lfr record's summary says it dropped
#     ("N without a stack, M over the CPU budget": each dropped interval is one of those, while
#     one dropped after its thread's last event is in no event);
#   - with --expect-dropped (a budget that throttled intervals), some are carried.
# Exit status: 0 when every check passes, 1 when one fails, 2 for bad usage or an unreadable file.
import argparse
import os
import re
import sys

from jfr_json import JfrError, events as jfr_events, nanos, tid


def main():
    ap = argparse.ArgumentParser(description="Checks the dropped intervals of lfr.OffCpu.")
    ap.add_argument("jfr")
    ap.add_argument("--summary", required=True)
    ap.add_argument("--min-ns", type=int, default=1000)
    ap.add_argument("--expect-dropped", action="store_true")
    ap.add_argument("--jfr-tool", default=os.environ.get("JFR", "/usr/bin/jfr"))
    args = ap.parse_args()
    m = re.search(r"(\d+) without a stack, (\d+) over the CPU budget", open(args.summary).read())
    if not m:
        print(f"budget-offcpu-check: {args.summary}: no off-CPU line", file=sys.stderr)
        return 2
    bound = int(m.group(1)) + int(m.group(2))
    try:
        off = [v for _, v in jfr_events(args.jfr_tool, args.jfr, ["lfr.OffCpu"])]
    except JfrError as e:
        print(f"budget-offcpu-check: {e}", file=sys.stderr)
        return 2
    ok = True

    def fail(msg):
        nonlocal ok
        ok = False
        print(f"budget-offcpu-check: FAILED: {msg}")

    last = {}
    for e in sorted(off, key=lambda e: (e["startTime"], nanos(e["duration"]))):
        if "droppedCount" not in e or "droppedDuration" not in e:
            fail("an lfr.OffCpu event without droppedCount and droppedDuration")
            break
        t, n, ns = tid(e, "eventThread"), e["droppedCount"], nanos(e["droppedDuration"])
        pn, pns = last.get(t, (0, 0))
        if n < pn or ns < pns:
            fail(f"thread {t}: dropped intervals went down from {pn} ({pns} ns) to {n} ({ns} ns)")
        if ns < n * args.min_ns:
            fail(f"thread {t}: {n} dropped intervals of {ns} ns, shorter than {args.min_ns} ns each")
        last[t] = (max(n, pn), max(ns, pns))
    carried = sum(n for n, _ in last.values())
    print(f"budget-offcpu-check: {len(off)} lfr.OffCpu events of {len(last)} threads carry "
          f"{carried} dropped intervals ({sum(ns for _, ns in last.values()) / 1e6:.3f} ms); "
          f"lfr record counted {bound} without an event")
    if carried > bound:
        fail(f"{carried} dropped intervals carried, more than the {bound} lfr record counted")
    if args.expect_dropped and not carried:
        fail("no event carries a dropped interval, though lfr record counted "
             f"{bound} without an event")
    print("budget-offcpu-check: " + ("passed" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
