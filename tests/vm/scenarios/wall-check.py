#!/usr/bin/env python3
# Checks a recording of tests/workloads/offcpu.c made with lfr record --wall HZ against what the
# workload measured in the same run:
#
#   wall-check.py FILE.jfr --workload-output offcpu.txt [--hz HZ] [--max-pct PCT] [--report R]
#                 [--timer-mode] [--jfr-tool JFR]
#
# The JDK's `jfr print --json` reads the file; its wall-clock samples are the
# profiler.WallClockSample events: one for each CPU sample (jdk.ExecutionSample, at its instant and
# of its thread, STATE_RUNNABLE: checked) and those off the CPU.  Every check is a count against the
# workload's own clocks within the run (PCT percent, default 2, plus the recording's counted
# losses and one sample per call for the rounding at each end), never a threshold of seconds:
#   - the waiting thread: its samples under wait_loop are wait_loop's wall time x HZ;
#   - per function f, g, h (nanosleep, a pipe read(), a futex wait): the samples with it in their
#     stack are its wall time x HZ, its samples off the CPU (without a CPU sample: sleeping, or
#     runnable when preempted) its time off the CPU (wall less CPU time) x HZ, at least one
#     sleeping sample per call, each with its exact user stack (f, wait_loop, main) and a kernel
#     stack through the scheduler;
#   - the spinning thread: its samples are its wall time x HZ, none sleeping in spin() but in
#     lfr's own walk (which may wait for the mapping lock);
#   - with --report (lfr report --wall's text): its total is exactly the number of wall-clock
#     samples.
# With --timer-mode (a recording of -a or -G: the CPU samples are each CPU's clock's, a thread's
# count its CPU time x HZ on average only) the counts that include CPU samples are printed, not
# checked; the samples off the CPU, which come from the thread's own intervals, still are.
# Exit status: 0 when every check passes, 1 when one fails, 2 for bad usage or an unreadable file.
import argparse
import collections
import os
import re
import sys

from jfr_json import JfrError, events as jfr_events, names, tid

FUNCS = ("f", "g", "h")


def parse_output(path):
    text = open(path).read()
    m = re.search(r"wait_tid=(\d+) spin_tid=(\d+) feed_tid=(\d+) rounds=(\d+)", text)
    o = re.search(r"^offcpu: f_ns=(\d+) g_ns=(\d+) h_ns=(\d+) f_n=(\d+) g_n=(\d+) h_n=(\d+)", text,
                  re.M)
    w = re.search(r"^offcpu-wall: f_ns=(\d+) g_ns=(\d+) h_ns=(\d+)", text, re.M)
    t = re.search(r"^offcpu-threads: wait_loop_wall_ns=(\d+) spin_wall_ns=(\d+)", text, re.M)
    if not (m and o and w and t):
        raise ValueError(f"{path}: not the output of offcpu")
    return {
        "wait": int(m.group(1)), "spin": int(m.group(2)),
        "off": dict(zip(FUNCS, map(int, o.group(1, 2, 3)))),
        "calls": dict(zip(FUNCS, map(int, o.group(4, 5, 6)))),
        "wall": dict(zip(FUNCS, map(int, w.group(1, 2, 3)))),
        "loop_ns": int(t.group(1)), "spin_ns": int(t.group(2)),
    }


def main():
    ap = argparse.ArgumentParser(description="Checks an lfr record --wall recording of offcpu.")
    ap.add_argument("jfr")
    ap.add_argument("--workload-output", required=True)
    ap.add_argument("--hz", type=float, default=999.0)
    ap.add_argument("--max-pct", type=float, default=2.0)
    ap.add_argument("--report", help="the text of lfr report --wall of the same file")
    ap.add_argument("--timer-mode", action="store_true",
                    help="a recording of -a or -G: counts with CPU samples are not checked")
    ap.add_argument("--jfr-tool", default=os.environ.get("JFR", "/usr/bin/jfr"))
    args = ap.parse_args()
    try:
        truth = parse_output(args.workload_output)
    except (OSError, ValueError) as e:
        print(f"wall-check: {e}", file=sys.stderr)
        return 2
    try:
        events = jfr_events(args.jfr_tool, args.jfr,
                            ["jdk.ExecutionSample", "profiler.WallClockSample", "lfr.LostSamples"])
    except JfrError as e:
        print(f"wall-check: {e}", file=sys.stderr)
        return 2
    lost = sum(v.get("count", 0) for t, v in events if t == "lfr.LostSamples")
    ok = True

    def fail(msg):
        nonlocal ok
        ok = False
        print(f"wall-check: FAILED: {msg}")

    def state(v):
        s = v.get("state")
        return s.get("name") if isinstance(s, dict) else s

    # a wall-clock sample is on the CPU ("cpu") when a CPU sample of its thread has its instant,
    # off it ("off") otherwise; every CPU sample has one, runnable
    cpu = collections.Counter((tid(v, "sampledThread"), v["startTime"]) for t, v in events
                              if t == "jdk.ExecutionSample")
    ncpu = sum(cpu.values())
    samples = []
    for t, v in events:
        if t != "profiler.WallClockSample":
            continue
        key = (tid(v, "sampledThread"), v["startTime"])
        on = cpu[key] > 0 and state(v) == "STATE_RUNNABLE"
        if on:
            cpu[key] -= 1
        samples.append(("cpu" if on else "off", v))
    if sum(cpu.values()):
        fail(f"{sum(cpu.values())} of {ncpu} CPU samples without their wall-clock sample")

    def of(thread):
        return [(t, v) for t, v in samples if tid(v, "sampledThread") == thread]

    def near(label, got, want_ns, calls, what="wall time", cpu=True):
        """got is want_ns x HZ within PCT, plus one sample per call at each end and, for samples
        that include CPU samples, the counted losses."""
        want = want_ns * args.hz / 1e9
        slack = want * args.max_pct / 100 + 2 * calls
        print(f"wall-check: {label}: {got} samples, {what} {want_ns / 1e6:.1f} ms x "
              f"{args.hz:g} Hz = {want:.1f}" + (" (not checked)" if cpu and args.timer_mode else ""))
        if cpu and args.timer_mode:
            return
        if got > want + slack or got + (lost if cpu else 0) < want - slack:
            fail(f"{label}: {got} samples, not {want:.1f} (+-{slack:.1f}, {lost} lost)")

    wait = of(truth["wait"])
    loop = [(t, v) for t, v in wait if "wait_loop" in names(v, False)]
    near("wait_loop", len(loop), truth["loop_ns"], sum(truth["calls"].values()))
    for k in FUNCS:
        mine = [(t, v) for t, v in loop if k in names(v, False)]
        offcpu = [(t, v) for t, v in mine if t == "off"]
        sleeping = [(t, v) for t, v in offcpu if state(v) == "STATE_SLEEPING"]
        near(f"{k}", len(mine), truth["wall"][k], truth["calls"][k])
        near(f"{k} off the CPU", len(offcpu), truth["off"][k], truth["calls"][k],
             what="time off the CPU", cpu=False)
        print(f"wall-check: {k}: {len(sleeping)} of them sleeping")
        if len(sleeping) < truth["calls"][k]:
            fail(f"{k}: {len(sleeping)} sleeping samples for {truth['calls'][k]} waits")
        for t, v in sleeping:
            user, kern = names(v, False), names(v, True)
            i = user.index(k)
            if user[i + 1:i + 3] != ["wait_loop", "main"]:
                fail(f"a sample in {k} without its callers wait_loop, main: {user}")
                break
            if not any("schedule" in x for x in kern):
                fail(f"a sleeping sample in {k} without the scheduler in its kernel stack: {kern}")
                break
    spin = of(truth["spin"])
    near("spinning thread", len(spin), truth["spin_ns"], 1)
    # spin() itself never waits: in it, only lfr's own walk can (for the mapping lock, which the
    # other threads' mmap and munmap take), and the sample says so with lfr_work_fn in its kernel
    # stack; it may wait while it starts or exits
    slept = [v for t, v in spin if state(v) == "STATE_SLEEPING"]
    in_spin = [v for v in slept if "spin" in names(v, False)]
    not_lfr = [v for v in in_spin if "lfr_work_fn" not in names(v, True)]
    print(f"wall-check: spinning thread: {len(slept)} sleeping samples, {len(in_spin)} in spin() "
          f"(in lfr's walk: {len(in_spin) - len(not_lfr)})")
    if not_lfr:
        fail(f"the spinning thread has {len(not_lfr)} sleeping samples in spin() outside lfr's "
             f"walk, e.g. {names(not_lfr[0], True)[:8]}")
    off_cpu = sum(1 for t, v in samples if t == "off")
    print(f"wall-check: {len(samples)} samples, {off_cpu} of them off the CPU, {lost} lost")
    if args.report:
        text = open(args.report).read()
        m = re.search(r"^Wall-clock samples: (\d+) ", text, re.M)
        if not m or int(m.group(1)) != len(samples):
            fail(f"lfr report --wall's total {m and m.group(1)} is not the {len(samples)} samples")
    print("wall-check: " + ("ok" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
