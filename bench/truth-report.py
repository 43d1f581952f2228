#!/usr/bin/env python3
# The table of bench/truth: for each run, the workload's truth, each profiler's split of the
# samples whose leaf is split_a/b/c, the error (largest of the three, in percentage points), the
# share of those samples whose next frame is their real caller split_loop, and medians per
# configuration.  lfr's files are read with the JDK (through split-check.py), perf's counts come
# from `perf script` in the guest.
#   truth-report.py DIR SPLIT_CHECK
import glob, os, re, statistics, subprocess, sys

d, checker = sys.argv[1], sys.argv[2]
LEAVES = ("split_a", "split_b", "split_c")


def truth(path):
    m = re.search(r"^split: a=([\d.]+) b=([\d.]+) c=([\d.]+)", open(path).read(), re.M)
    return dict(zip(LEAVES, map(float, m.groups()))) if m else None


def perf_split(path):
    counts, callers = dict.fromkeys(LEAVES, 0), 0
    for line in open(path):
        _, leaf, nxt, n = line.split()
        if leaf in counts:
            counts[leaf] += int(n)
            callers += int(n) if nxt == "split_loop" else 0
    return counts, callers


def lfr_split(path, txt):
    out = subprocess.run([checker, path, "--workload-output", txt, "--max-pp", "100"],
                         capture_output=True, text=True).stdout
    m = re.search(r"^split-check: lfr: +a=([\d.]+) b=([\d.]+) c=([\d.]+)", out, re.M)
    c = re.search(r"^split-check: (\d+) of (\d+) split_\* samples have split_loop", out, re.M)
    if not m or not c:
        return None, 0, 0
    return dict(zip(LEAVES, map(float, m.groups()))), int(c.group(1)), int(c.group(2))


rows, groups = [], {}
for txt in sorted(glob.glob(f"{d}/*.txt")):
    rid = os.path.basename(txt)[:-4]
    prof, rest = rid.split("-", 1)
    prog, hz, run = rest.rsplit("-", 2)
    t = truth(txt)
    if not t:
        rows.append(f"| {prog} | {hz} | {run} | {prof} | (no truth: the run failed) | | | |")
        continue
    if prof == "perf":
        counts, callers = perf_split(f"{d}/{rid}.perf")
        n = sum(counts.values())
        split = {k: 100.0 * v / n for k, v in counts.items()} if n else None
    else:
        split, callers, n = lfr_split(f"{d}/{rid}.jfr", txt)
    if not split:
        rows.append(f"| {prog} | {hz} | {run} | {prof} | (no samples in split_*) | | | |")
        continue
    err = max(abs(split[k] - t[k]) for k in LEAVES)
    groups.setdefault((prog, int(hz), prof), []).append((err, 100.0 * callers / n, n))
    rows.append(f"| {prog} | {hz} | {run} | {prof} | "
                + "/".join(f"{t[k]:.2f}" for k in LEAVES) + " | "
                + "/".join(f"{split[k]:.2f}" for k in LEAVES)
                + f" | {err:.2f} | {n} | {100.0 * callers / n:.1f}% |")
print("Per run (truth and splits are a/b/c in percent of the three functions' time):\n")
print("| program | Hz | run | profiler | truth | split | error pp | samples in split_* | with caller split_loop |")
print("|---|---:|---:|---|---|---|---:|---:|---:|")
print("\n".join(rows))
print("\nMedians per configuration:\n")
print("| program | Hz | perf error pp | lfr error pp | perf samples | lfr samples | perf with caller | lfr with caller |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
for prog, hz in sorted({(p, h) for p, h, _ in groups}):
    def med(prof, i):
        v = [x[i] for x in groups.get((prog, hz, prof), [])]
        return statistics.median(v) if v else float("nan")
    print(f"| {prog} | {hz} | {med('perf', 0):.2f} | {med('lfr', 0):.2f} | {med('perf', 2):.0f} | "
          f"{med('lfr', 2):.0f} | {med('perf', 1):.1f}% | {med('lfr', 1):.1f}% |")
