#!/usr/bin/env python3
# Checks a recording of tests/workloads/split.c (split or split-gcc) against the truth the workload
# measured and printed in the same run:
#
#   split-check.py FILE.jfr --truth 'a=49.60,b=30.17,c=20.23' [--tids LOOP,CHAIN] [--max-pp PP]
#   split-check.py FILE.jfr --workload-output split.txt [--max-pp PP] [--sigmas N]
#
# --workload-output reads the truth and both thread ids from the workload's own output.  The JDK's
# `jfr print --json` (JFR=path, default /usr/bin/jfr) reads the file.  It prints lfr's split of the
# samples whose leaf (first user frame) is split_a, split_b or split_c next to the truth, with the
# difference in percentage points, and checks:
#   - the split is within PP points of the truth for each function (default 3.0), plus N sd of
#     sampling noise (--sigmas) and, with --workload-output, the truth's own uncertainty: how far
#     its stall correction moved it from the raw CPU clock ("split-raw:");
#   - every sample in a split_* leaf has split_loop as its next frame (its real caller: a
#     frame-pointer walk from gcc's frameless leaves skips it);
#   - every sample of the 40-frame chain is exact: chainK, chainK-1, ..., chain01, chain_main;
#   - with thread ids: split_* samples come from the loop thread, chain samples from the other.
# Exit status: 0 when every check passes, 1 when one fails, 2 for bad usage or an unreadable file.
import argparse
import json
import os
import re
import subprocess
import sys

LEAVES = ("split_a", "split_b", "split_c")
CHAIN = re.compile(r"^chain(\d\d)$")


def parse_truth(text):
    truth = {}
    for k, v in re.findall(r"\b([abc])=([0-9.]+)", text):
        truth["split_" + k] = float(v)
    if sorted(truth) != list(LEAVES):
        raise ValueError(f"truth must give a, b and c, e.g. 'a=49.60,b=30.17,c=20.23': {text!r}")
    return truth


def parse_output(path):
    """The truth, the thread ids, and the truth's own uncertainty: per leaf, how far the stall
    correction moved it from the raw CPU-clock figure (0 without a 'split-raw:' line)."""
    truth, tids, raw = None, None, None
    for line in open(path):
        if line.startswith("split: "):
            truth = parse_truth(line)
        if line.startswith("split-raw: "):
            raw = parse_truth(line.split("(")[0])
        m = re.search(r"loop_tid=(\d+) chain_tid=(\d+)", line)
        if m:
            tids = (int(m.group(1)), int(m.group(2)))
    if truth is None:
        raise ValueError(f"{path}: no 'split: a=.. b=.. c=..' line (did the workload finish?)")
    spread = {k: abs(truth[k] - raw[k]) if raw else 0.0 for k in LEAVES}
    return truth, tids, spread


def user_frames(sample):
    frames = (sample.get("stackTrace") or {}).get("frames") or []
    return [f["method"]["name"] for f in frames if f.get("type") != "Kernel"]


def main():
    ap = argparse.ArgumentParser(description="Checks a recording of the split workload.")
    ap.add_argument("jfr", help="the recording (.jfr)")
    ap.add_argument("--truth", help="the workload's 'split:' line or 'a=..,b=..,c=..'")
    ap.add_argument("--workload-output", help="the workload's output (truth and thread ids)")
    ap.add_argument("--tids", help="LOOP_TID,CHAIN_TID")
    ap.add_argument("--sigmas", type=float, default=0.0,
                    help="also allow this many standard deviations of sampling noise")
    ap.add_argument("--max-pp", type=float, default=3.0,
                    help="largest difference from the truth, in percentage points")
    ap.add_argument("--max-throttled", type=float, default=100.0,
                    help="compare the split only when at most this percentage of the ticks was "
                         "throttled (default 100: always)")
    ap.add_argument("--max-no-caller", type=float, default=0.0,
                    help="percentage of split_* samples that may lack split_loop (default 0); raw "
                         "frame-pointer chains lose the caller of a sample at a leaf's first two "
                         "instructions, before its frame is set up")
    ap.add_argument("--jfr-tool", default=None, help="the JDK's jfr (default $JFR or /usr/bin/jfr)")
    args = ap.parse_args()
    tids = None
    spread = {k: 0.0 for k in LEAVES}
    try:
        if args.workload_output:
            truth, tids, spread = parse_output(args.workload_output)
        elif args.truth:
            truth = parse_truth(args.truth)
        else:
            ap.error("give --truth or --workload-output")
        if args.tids:
            tids = tuple(int(x) for x in args.tids.split(","))
    except (OSError, ValueError) as e:
        print(f"split-check: {e}", file=sys.stderr)
        return 2
    tool = args.jfr_tool or os.environ.get("JFR", "/usr/bin/jfr")
    p = subprocess.run([tool, "print", "--json", "--stack-depth", "200", "--events",
                        "jdk.ExecutionSample,lfr.LostSamples", args.jfr], capture_output=True, text=True)
    if p.returncode:
        print(f"split-check: {tool} print {args.jfr} failed: {p.stderr.strip()}", file=sys.stderr)
        return 2
    events = json.loads(p.stdout)["recording"]["events"]
    samples = [e["values"] for e in events if e["type"] == "jdk.ExecutionSample"]
    lost = {}
    for e in events:
        if e["type"] == "lfr.LostSamples":
            r = e["values"]["reason"]
            lost[r] = lost.get(r, 0) + e["values"]["count"]
    ticks = len(samples) + sum(lost.values())
    throttled = 100.0 * lost.get("throttled", 0) / ticks if ticks else 0.0

    ok = True
    counts = dict.fromkeys(LEAVES, 0)
    bad_caller, bad_chain, bad_tid = [], [], []
    chain_samples = 0
    for s in samples:
        u = user_frames(s)
        tid = (s.get("sampledThread") or {}).get("osThreadId")
        if u and u[0] in LEAVES:
            counts[u[0]] += 1
            if len(u) < 2 or u[1] != "split_loop":
                bad_caller.append(u[:4])
            if tids and tid != tids[0]:
                bad_tid.append((u[0], tid))
        # The chain thread also waits at a barrier before its chain (chain_main -> libc): only
        # samples in the chain's functions are checked.
        if "chain_main" in u and any(CHAIN.match(f) for f in u):
            chain_samples += 1
            i = u.index("chain_main")
            m = CHAIN.match(u[0]) if i else None
            want = [f"chain{k:02d}" for k in range(int(m.group(1)), 0, -1)] if m else None
            if want is None or u[:i] != want:
                bad_chain.append(u[:i + 1])
            if tids and tid != tids[1]:
                bad_tid.append(("chain", tid))

    total = sum(counts.values())
    print(f"split-check: {len(samples)} samples, {total} in split_a/b/c, {chain_samples} in the "
          f"chain")
    if not total:
        print("split-check: FAILED: no sample has split_a, split_b or split_c as its leaf")
        return 1
    ours = {k: 100.0 * v / total for k, v in counts.items()}
    print("split-check: lfr:   " + " ".join(f"{k[-1]}={ours[k]:.2f}" for k in LEAVES))
    print("split-check: truth: " + " ".join(f"{k[-1]}={truth[k]:.2f}" for k in LEAVES))
    print("split-check: diff:  " + " ".join(f"{k[-1]}={ours[k] - truth[k]:+.2f}pp" for k in LEAVES))
    # Sampling spreads a share like a binomial one: sd = sqrt(p (1 - p) / n).  With --sigmas N a
    # function may be off by max-pp plus N of those (the noise of a short run), and no more.
    sd = {k: 100.0 * (ours[k] / 100 * (1 - ours[k] / 100) / total) ** 0.5 for k in LEAVES}
    print("split-check: sd:    " + " ".join(f"{k[-1]}={sd[k]:.2f}pp" for k in LEAVES))
    # The truth is only as sure as the workload's own measurement: when a loaded host stalls its
    # virtual CPU in many intervals, the stall correction moves the truth away from the raw CPU
    # clock, and the difference is the truth's uncertainty (at most a few tenths of a point on a quiet
    # host); it widens the bound by that much.
    if any(spread.values()):
        print("split-check: truth's uncertainty (stall correction): " +
              " ".join(f"{k[-1]}={spread[k]:.2f}pp" for k in LEAVES))
    bound = {k: args.max_pp + args.sigmas * sd[k] + spread[k] for k in LEAVES}
    over = [k for k in LEAVES if abs(ours[k] - truth[k]) > bound[k]]
    # Over its CPU budget lfr samples only the start of each 100 ms window (lost "throttled"),
    # and its walks then take a quarter of the thread's time, inside the workload's intervals: the
    # truth no longer measures what the samples do.  Such a recording's split is printed, not
    # compared (the chains still are).
    if throttled > args.max_throttled:
        print(f"split-check: the split is not compared: {throttled:.1f} % of the {ticks} ticks "
              f"were throttled (more than {args.max_throttled:g} %)")
        over = []
    if over:
        k = over[0]
        print(f"split-check: FAILED: {k} is {abs(ours[k] - truth[k]):.2f} pp off the truth "
              f"(more than {args.max_pp:.2f} + {args.sigmas:g} sd + {spread[k]:.2f} = "
              f"{bound[k]:.2f})")
        ok = False
    print(f"split-check: {total - len(bad_caller)} of {total} split_* samples have split_loop as "
          f"caller")
    if bad_caller and 100.0 * len(bad_caller) > args.max_no_caller * total:
        print(f"split-check: FAILED: {len(bad_caller)} split_* samples lack their caller "
              f"split_loop, e.g. {bad_caller[:3]}")
        ok = False
    print(f"split-check: {chain_samples - len(bad_chain)} of {chain_samples} chain samples are "
          f"exact")
    if not chain_samples:
        print("split-check: FAILED: no sample of the 40-frame chain")
        ok = False
    if bad_chain:
        print(f"split-check: FAILED: {len(bad_chain)} chain samples are not chainK..chain01 "
              f"under chain_main, e.g. {bad_chain[:2]}")
        ok = False
    if bad_tid:
        print(f"split-check: FAILED: {len(bad_tid)} samples on the wrong thread, "
              f"e.g. {bad_tid[:3]}")
        ok = False
    print("split-check: ok" if ok else "split-check: FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
