#!/usr/bin/env python3
# Checks a recording of tests/workloads/latency.c made with lfr record --latency=MIN against the
# read() calls the workload timed itself in the same run:
#
#   latency-check.py FILE.jfr --workload-output latency.txt --min-ns MIN [--report R] [--jfr-tool J]
#
# The JDK's `jfr print --json` reads the file.  Every check is an identity within the run, never a
# threshold of seconds, so that a loaded host or the slow debug kernel cannot fail it:
#   - each lfr.SamplingLatency event of the reading thread that starts within the timed calls'
#     span lies inside one timed read() call: its tick after the call began, its walk (tick +
#     duration) before the call returned; at most one per call (one walk per return to user
#     space), none shorter than MIN (the thread's start-up, before the first call, has its own:
#     page faults, exec; they are only counted; so has a tick that lands in lfr's own walk at a
#     call's return, lfr_work_fn in its kernel stack: counted apart);
#   - each is written with its tick's sample: a jdk.ExecutionSample of the same thread at the same
#     instant exists, the first of that call inside the system call (a tick between the
#     workload's clock read and the system call is walked before the call: in user space, or in a
#     page fault);
#   - every call whose first sample came at least 2 x MIN before the call returned has its event
#     (the walk runs at the return, after the last of the call's ticks);
#   - its stack: the system call's entry (do_syscall_64) above read_urandom <- read_loop <- main,
#     and in all, the read() path (vfs_read) and the urandom code in the kernel stacks of most
#     (printed; at least one of each);
#   - with --report (lfr report --latency's text): its total is exactly the sum of the durations
#     and its longest row is the longest event.
# Exit status: 0 when every check passes, 1 when one fails, 2 for bad usage or an unreadable file.
import argparse
import os
import re
import sys

from jfr_json import JfrError, chunk_clock, events as jfr_events, names, nanos, tid, ticks_of

# inside the read() system call the workload timed: the system call's entry (a tick may land
# there, before the call reaches read's code: syscall_enter_from_user_mode, x64_sys_call), since
# between its two clock reads (vDSO) the workload makes no other system call
SYSCALL = re.compile(r"^(do_syscall_64|entry_SYSCALL_64\w*)$")
# the read() path itself (its first tick may come before the urandom code, in the permission
# checks of vfs_read): counted, like the urandom code
KERNEL_PATH = re.compile(r"^(ksys_read|vfs_read|__x64_sys_read)$")
URANDOM = re.compile(r"get_random_bytes_user|urandom_read|chacha")


def parse_output(path):
    text = open(path).read()
    m = re.search(r"^latency pid=(\d+) tid=(\d+) calls=(\d+)", text, re.M)
    if not m:
        raise ValueError(f"{path}: no 'latency pid=' line")
    calls = [(int(a), int(b)) for a, b in re.findall(r"^call start=(\d+) end=(\d+)", text, re.M)]
    if len(calls) != int(m.group(3)):
        raise ValueError(f"{path}: {len(calls)} call lines, {m.group(3)} calls")
    return int(m.group(2)), calls


def main():
    ap = argparse.ArgumentParser(description="Checks an lfr record --latency recording of latency.")
    ap.add_argument("jfr")
    ap.add_argument("--workload-output", required=True)
    ap.add_argument("--min-ns", type=int, required=True)
    ap.add_argument("--report", help="the text of lfr report --latency of the same file")
    ap.add_argument("--jfr-tool", default=os.environ.get("JFR", "/usr/bin/jfr"))
    args = ap.parse_args()
    try:
        reader, calls = parse_output(args.workload_output)
        clock = chunk_clock(args.jfr)
    except (OSError, ValueError) as e:
        print(f"latency-check: {e}", file=sys.stderr)
        return 2
    try:
        events = jfr_events(args.jfr_tool, args.jfr, ["lfr.SamplingLatency", "jdk.ExecutionSample"])
    except JfrError as e:
        print(f"latency-check: {e}", file=sys.stderr)
        return 2
    ok = True

    def fail(msg):
        nonlocal ok
        ok = False
        print(f"latency-check: FAILED: {msg}")

    lat = [v for t, v in events if t == "lfr.SamplingLatency"]
    mine = [v for v in lat if tid(v, "eventThread") == reader]
    # the samples of ticks inside the system call (with -k, its entry in their kernel stack): a tick between
    # the workload's clock read and the system call is in user space, walked at once, and one in
    # a page fault there (the first call binds read) returns to user space before the call
    mine_samples = [v for t, v in events
                    if t == "jdk.ExecutionSample" and tid(v, "sampledThread") == reader]
    samples = sorted(ticks_of(v["startTime"], clock) for v in mine_samples
                     if any(SYSCALL.search(k) for k in names(v, True)))
    sample_set = set(ticks_of(v["startTime"], clock) for v in mine_samples)
    first = []  # the first sample of each call, or None
    for start, end in calls:
        inside = [s for s in samples if start <= s <= end]
        first.append(inside[0] if inside else None)
    per_call = [0] * len(calls)
    total = longest = outside = urandom = read_path = own = 0
    for e in mine:
        t0 = ticks_of(e["startTime"], clock)
        d = nanos(e["duration"])
        total += d
        longest = max(longest, d)
        if t0 < calls[0][0] or t0 > calls[-1][1]:
            outside += 1
            continue
        where = [i for i, (s, end) in enumerate(calls) if s <= t0 and t0 + d <= end]
        if len(where) != 1:
            fail(f"a latency [{t0}, {t0 + d}] inside no timed read() call")
            continue
        i = where[0]
        kern, user = names(e, True), names(e, False)
        if d < args.min_ns:
            fail(f"a latency of {d} ns, below the minimum {args.min_ns}")
        if t0 not in sample_set:
            fail(f"the latency at {t0} has no sample of its tick")
        # a tick may land in lfr's own walk of the call's first tick, at the call's return: its
        # walk follows that one; lfr's cost, counted apart
        if "lfr_work_fn" in kern:
            own += 1
            continue
        per_call[i] += 1
        if t0 != first[i]:
            fail(f"the latency at {t0} is not of call {i}'s first tick ({first[i]})")
        urandom += any(URANDOM.search(k) for k in kern)
        read_path += any(KERNEL_PATH.search(k) for k in kern)
        if not any(SYSCALL.search(k) for k in kern):
            fail(f"the latency at {t0} lacks the system call's entry in its kernel stack: {kern[:8]}")
        want = ["read_urandom", "read_loop", "main"]
        if [u for u in user if u in want] != want:
            fail(f"the latency at {t0} has the user stack {user}, not read_urandom <- read_loop <- main")
    due = [i for i, f in enumerate(first) if f is not None and calls[i][1] - f >= 2 * args.min_ns]
    missing = [i for i in due if per_call[i] == 0]
    twice = [i for i, n in enumerate(per_call) if n > 1]
    print(f"latency-check: {len(calls)} read() calls of tid {reader}, {len(mine)} latencies "
          f"({len(lat)} in all, {outside} before or after the calls), {len(due)} calls long "
          f"enough to need one; total {total} ns, longest {longest} ns")
    print(f"latency-check: {read_path} of them with the read() path and {urandom} with the "
          f"urandom code in their kernel stack, {own} whose tick came in lfr's own walk")
    if not read_path:
        fail("no latency has the read() path (vfs_read) in its kernel stack")
    if not urandom:
        fail("no latency has the urandom code (get_random_bytes_user) in its kernel stack")
    if twice:
        fail(f"calls with more than one latency: {twice}")
    if missing:
        fail(f"calls without their latency: {missing} of {len(due)}")
    if not due:
        fail("no read() call was long enough to check (larger reads, or a lower minimum)")
    if args.report:
        text = open(args.report).read()
        m = re.search(r"^Sampling latency: (\d+) ns", text, re.M)
        if not m or int(m.group(1)) != sum(nanos(e["duration"]) for e in lat):
            fail(f"lfr report --latency's total {m and m.group(1)} is not the sum of the events")
        rows = re.findall(r"^\s+([\d.]+)\s+[\d.]+\s+\d+\s+\S.*->", text.split(
            "Longest sampling latencies", 1)[-1], re.M)
        if not rows or abs(float(rows[0]) * 1e6 - max(nanos(e["duration"]) for e in lat)) > 1e3:
            fail(f"lfr report --latency's longest row {rows[:1]} is not the longest event")
    print("latency-check: " + ("ok" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
