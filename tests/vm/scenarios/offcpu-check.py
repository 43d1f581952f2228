#!/usr/bin/env python3
# Checks a recording of tests/workloads/offcpu.c made with lfr record --off-cpu against what the
# workload measured and printed in the same run:
#
#   offcpu-check.py FILE.jfr --workload-output offcpu.txt [--max-pct PCT] [--hz HZ] [--timer-mode]
#                   [--jfr-tool JFR]
#
# The JDK's `jfr print --json` reads the file.  Every check is an identity or a ratio within the
# run, never a threshold of seconds, so that a loaded host or the slow debug kernel cannot fail it:
#   - off-CPU time per function: the workload's own sum of its waits in f, g or h (wall time less
#     the thread's CPU time, both read right around the system call; the wall time alone also holds
#     the thread's own work around the wait, lfr's walk at the return to user space included:
#     printed for comparison, split into the two with the CPU time a wait, and lfr's total
#     against it: 1-3 % short of it for waits of 20-50 ms under an emulated CPU) lies, within PCT percent (default 2), between the summed duration of
#     the waiting thread's sleeping lfr.OffCpu events whose user stack holds that function and
#     that of all its events there (a preempted interval may fall inside the workload's clock,
#     which counts it, or just outside it, in the function around the call);
#   - every wait has its event: at least as many sleeping intervals in f, g and h as the workload
#     made calls (a thread preempted in them for long enough adds a preempted one, which the
#     workload's clock counted too), but for g: a g preempted between its request and its read for
#     longer than the answer takes finds the byte there and does not sleep, so its waits are its
#     sleeping and its preempted intervals together (seen with the host's clock); every event of the waiting thread under wait_loop holds
#     exactly one of f, g, h (its exact user stack: f, then wait_loop, then main);
#   - every event has a kernel stack that goes through the scheduler;
#   - with --report (lfr report --off-cpu's text): its off-CPU total is exactly the sum of every
#     event's duration, its table by state the events' durations summed by state, and f, g and h
#     are among its functions;
#   - the spinning thread's CPU samples: its jdk.ExecutionSample count is its CPU time (printed by
#     the workload) times HZ within PCT percent (plus the recording's counted losses), every one
#     under spin_main in spin() (or spin_main's own code, the clock reads and naming around it),
#     and no sleeping interval in spin() but in lfr's own walk (waiting for the mapping lock).
#     With --timer-mode (a recording of -a or -G: CPU samples by each CPU's clock, a thread's
#     count its CPU time x HZ on average only) that count is printed, not checked.
# Exit status: 0 when every check passes, 1 when one fails, 2 for bad usage or an unreadable file.
import argparse
import os
import re
import sys

from jfr_json import JfrError, events as jfr_events, frames, nanos, tid

FUNCS = ("f", "g", "h")


def parse_output(path):
    text = open(path).read()
    m = re.search(r"wait_tid=(\d+) spin_tid=(\d+) feed_tid=(\d+)", text)
    w = re.search(r"^offcpu: f_ns=(\d+) g_ns=(\d+) h_ns=(\d+) f_n=(\d+) g_n=(\d+) h_n=(\d+)", text,
                  re.M)
    s = re.search(r"^offcpu-spin: cpu_ns=(\d+)", text, re.M)
    wl = re.search(r"^offcpu-wall: f_ns=(\d+) g_ns=(\d+) h_ns=(\d+)", text, re.M)
    if not (m and w and s):
        raise ValueError(f"{path}: the workload's lines are missing (did it finish?)")
    return {
        "wait": int(m.group(1)), "spin": int(m.group(2)), "feed": int(m.group(3)),
        "ns": dict(zip(FUNCS, map(int, w.group(1, 2, 3)))),
        "calls": dict(zip(FUNCS, map(int, w.group(4, 5, 6)))),
        "wall": dict(zip(FUNCS, map(int, wl.group(1, 2, 3)))) if wl else None,
        "spin_cpu_ns": int(s.group(1)),
    }


def main():
    ap = argparse.ArgumentParser(description="Checks an --off-cpu recording of offcpu.")
    ap.add_argument("jfr")
    ap.add_argument("--workload-output", required=True)
    ap.add_argument("--max-pct", type=float, default=2.0)
    ap.add_argument("--hz", type=float, default=999.0)
    ap.add_argument("--report", help="the text of lfr report --off-cpu of the same file")
    ap.add_argument("--timer-mode", action="store_true",
                    help="a recording of -a or -G: the spinning thread's count is not checked")
    ap.add_argument("--jfr-tool", default=os.environ.get("JFR", "/usr/bin/jfr"))
    args = ap.parse_args()
    try:
        truth = parse_output(args.workload_output)
    except (OSError, ValueError) as e:
        print(f"offcpu-check: {e}", file=sys.stderr)
        return 2
    try:
        events = jfr_events(args.jfr_tool, args.jfr,
                            ["lfr.OffCpu", "jdk.ExecutionSample", "lfr.LostSamples"])
    except JfrError as e:
        print(f"offcpu-check: {e}", file=sys.stderr)
        return 2
    off = [v for t, v in events if t == "lfr.OffCpu"]
    samples = [v for t, v in events if t == "jdk.ExecutionSample"]
    lost = sum(v.get("count", 0) for t, v in events if t == "lfr.LostSamples")
    ok = True

    def fail(msg):
        nonlocal ok
        ok = False
        print(f"offcpu-check: FAILED: {msg}")

    got = {k: 0 for k in FUNCS}
    slept = {k: 0 for k in FUNCS}
    count = {k: 0 for k in FUNCS}
    others = {k: 0 for k in FUNCS}
    no_kernel = no_sched = 0
    for e in off:
        fr = frames(e)
        user = [f["method"]["name"] for f in fr if f.get("type") != "Kernel"]
        kern = [f["method"]["name"] for f in fr if f.get("type") == "Kernel"]
        if not kern:
            no_kernel += 1
        elif not any("schedule" in k for k in kern):
            no_sched += 1
        # in spin() only lfr's own walk may wait (for the mapping lock other threads take)
        if (tid(e, "eventThread") == truth["spin"] and e.get("state") == "sleeping"
                and "spin" in user and "lfr_work_fn" not in kern):
            fail(f"the spinning thread slept in spin() outside lfr's walk: {kern[:8]}")
        if tid(e, "eventThread") != truth["wait"] or "wait_loop" not in user:
            continue
        inside = [k for k in FUNCS if k in user]
        if len(inside) != 1:
            fail(f"an interval under wait_loop in {inside or 'none'} of f, g, h: {user}")
            continue
        k = inside[0]
        i = user.index(k)
        if user[i + 1:i + 3] != ["wait_loop", "main"]:
            fail(f"{k}'s interval without its callers wait_loop, main: {user}")
        got[k] += nanos(e["duration"])
        slept[k] += nanos(e["duration"]) if e.get("state") == "sleeping" else 0
        count[k] += e.get("state") == "sleeping"
        others[k] += e.get("state") != "sleeping"
    print(f"offcpu-check: {len(off)} off-CPU intervals, {len(samples)} CPU samples, {lost} lost")
    # each event carries its thread's intervals under the minimum so far: the last one's are all
    mine = [e for e in off if tid(e, "eventThread") == truth["wait"]]
    if mine:
        last = max(mine, key=lambda e: e.get("shortCount", 0))
        print(f"offcpu-check: the waiting thread's intervals under the minimum: "
              f"{last.get('shortCount', 0)}, {nanos(last.get('shortDuration', 0)) / 1e6:.3f} ms")
    for k in FUNCS:
        want = truth["ns"][k]
        # The waits sleep inside the workload's clock: the sleeping intervals are at most its
        # sum; preempted ones may lie inside it (its clock counts them) or just outside, in the
        # function around the system call: the workload's sum lies between the two.
        near = slept[k] if want < slept[k] else got[k] if want > got[k] else want
        diff = 100.0 * (near - want) / want if want else 0.0
        print(f"offcpu-check: {k}: lfr {got[k] / 1e6:10.3f} ms in {count[k]} sleeping and "
              f"{others[k]} other intervals ({slept[k] / 1e6:.3f} ms sleeping), "
              f"workload {want / 1e6:10.3f} ms in {truth['calls'][k]} waits: {diff:+.3f} %"
              + (f" (wall time {truth['wall'][k] / 1e6:.3f} ms)" if truth["wall"] else ""))
        if truth["wall"]:
            # the wall time is lfr's intervals plus the thread's own CPU time in the calls (the
            # system call, the scheduler, lfr's walk at the return to user space): not off the CPU
            cpu = truth["wall"][k] - want
            n = truth["calls"][k] or 1
            print(f"offcpu-check: {k}: wall time {truth['wall'][k] / 1e6:.3f} ms = off the CPU "
                  f"{want / 1e6:.3f} + the thread's CPU time {cpu / 1e6:.3f} ms "
                  f"({cpu / n / 1e6:.3f} ms a wait); lfr against the wall time "
                  f"{100.0 * (got[k] - truth['wall'][k]) / truth['wall'][k]:+.3f} %")
        if abs(diff) > args.max_pct:
            fail(f"{k}: off-CPU time {diff:+.3f} % from the workload's, more than {args.max_pct} %")
        waits = count[k] + (others[k] if k == "g" else 0)
        if waits < truth["calls"][k]:
            fail(f"{k}: {count[k]} sleeping intervals" + (f" and {others[k]} others" if k == "g" else "")
                 + f" for {truth['calls'][k]} waits")
    if no_kernel:
        fail(f"{no_kernel} intervals without a kernel stack")
    if no_sched:
        fail(f"{no_sched} intervals whose kernel stack does not go through the scheduler")

    if args.report:
        text = open(args.report).read()
        m = re.search(r"^Off-CPU time: (\d+) ns", text, re.M)
        every = sum(nanos(e["duration"]) for e in off)
        print(f"offcpu-check: lfr report --off-cpu: {m.group(1) if m else '?'} ns, "
              f"the events' durations: {every} ns")
        if not m or int(m.group(1)) != every:
            fail("lfr report --off-cpu's total is not the sum of the events' durations")
        for k in FUNCS:
            if not re.search(rf"\s{k}  \(offcpu\)$", text, re.M):
                fail(f"lfr report --off-cpu does not list {k} (offcpu)")
        # by state: each row the sum of the events of that state
        want_states = {}
        for e in off:
            st = e.get("state") or "[no state]"
            want_states[st] = want_states.get(st, 0) + nanos(e["duration"])
        part = text.split("Off-CPU by state", 1)
        rows = dict((st, int(v)) for v, st in re.findall(
            r"^\s*(\d+)\s+[\d.]+%\s+(\S+)$", part[1].split("\n\n", 1)[0], re.M)) if len(part) > 1 else {}
        print(f"offcpu-check: lfr report --off-cpu by state: {rows}")
        if rows != want_states:
            fail(f"lfr report --off-cpu's table by state {rows} is not the events' {want_states}")

    spin = [s for s in samples if tid(s, "sampledThread") == truth["spin"]]
    in_spin = sum(1 for s in spin if "spin" in [f["method"]["name"] for f in frames(s)])
    want = truth["spin_cpu_ns"] * args.hz / 1e9
    diff = 100.0 * (len(spin) - want) / want if want else 0.0
    slack = args.max_pct + (100.0 * lost / want if want else 0.0)
    print(f"offcpu-check: spinning thread: {len(spin)} samples ({in_spin} in spin), CPU time "
          f"{truth['spin_cpu_ns'] / 1e6:.1f} ms x {args.hz:g} Hz = {want:.1f}: {diff:+.3f} %")
    if abs(diff) > slack and not args.timer_mode:
        fail(f"the spinning thread's samples are {diff:+.3f} % from its CPU time x rate "
             f"(allowed {slack:.3f} %)")
    # under spin_main every sample is in spin_main itself, spin() or its calls around spin() (its
    # tid by syscall(SYS_gettid), its name, its clocks); libc's thread exit after spin_main
    # returned (slow on a debug kernel) is not under it
    allowed = {"spin", "syscall", "pthread_setname_np", "now_ns", "clock_gettime"}
    stray = [fr for fr in ([f["method"]["name"] for f in frames(s)] for s in spin)
             if "spin_main" in fr and fr.index("spin_main") > 0
             and not allowed & set(fr[:fr.index("spin_main")])]
    if stray:
        fail(f"{len(stray)} of the spinning thread's samples under spin_main are outside spin(), "
             f"e.g. {stray[0][:6]}")
    print("offcpu-check: " + ("passed" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
