#!/usr/bin/env python3
# Checks a recording of tests/workloads/spanctx (lfr record --wall) against the functions its
# samples ran in:
#
#   thread-ctx-check.py FILE.jfr --workload-output OUT --summary ERR [--jfr-tool JFR]
#
# The JDK's `jfr print --json` reads the file.  A sample's thread context is the lfr.TraceContext
# event of its thread at its instant.  Every sample (jdk.ExecutionSample on the CPU, with its
# profiler.WallClockSample at the same instant and off it) of the workload's threads is checked:
#   - in span_K or span_rewrite_K: its context is span K's: span id 8 bytes of 0x11 * K, trace id
#     8 bytes of the thread's tag then 8 of K, http.route=/span/K and worker=THREAD; none may lack
#     one (100 %), but ctx-rewrite's samples taken while its record's valid byte was 0;
#   - in warm (before the spans start): span 9's ids, or none (before the process was registered);
#   - in no_span (ctx-none, whose variable is NULL): no context;
#   - every context of the file is one of those ids: never a mix of two (a torn record).
# The samples without a context are checked against lfr record's summary ("thread contexts: ...
# without (null N, invalid N, ...)"): at least the null ones of ctx-none and the invalid ones of
# ctx-rewrite; the lfr.TraceContext events must be exactly the samples "with one".
# Exit status: 0 when every check passes, 1 when one fails, 2 for bad usage or an unreadable file.
import argparse
import re
import sys
import urllib.parse

from jfr_json import JfrError, events as jfr_events, names, tid

TAGS = {"ctx-swap": 0xA1, "ctx-valid": 0xA2, "ctx-rewrite": 0xA3}
SPAN_FN = re.compile(r"^span_(?:rewrite_)?([123])$")


def baggage(s):
    """The attributes of a W3C baggage string (key=value,key=value, percent-encoded)."""
    out = {}
    for member in (s or "").split(","):
        kv = member.split(";")[0]
        if "=" in kv:
            k, v = kv.split("=", 1)
            out[urllib.parse.unquote(k.strip())] = urllib.parse.unquote(v.strip())
    return out

def parse_output(path):
    text = open(path).read()
    threads = {int(t): n for n, t in re.findall(r"^spanctx-thread (\S+) (\d+)$", text, re.M)}
    if len(threads) != 4 or "spanctx: done" not in text:
        raise ValueError(f"{path}: not the whole output of spanctx")
    return threads


def parse_summary(path):
    m = re.search(r"thread contexts: (\d+) process\S*; (\d+) samples with one, (\d+) without "
                  r"\(null (\d+), invalid (\d+), unreadable (\d+), changed while read (\d+), "
                  r"no TLS block (\d+)\)", open(path).read())
    if not m:
        raise ValueError(f"{path}: no thread contexts line in lfr record's summary")
    keys = ("processes", "with", "without", "null", "invalid", "fault", "changed", "no_block")
    out = dict(zip(keys, map(int, m.groups())))
    u = re.search(r"(\d+) context attributes left out", open(path).read())
    out["unnamed"] = int(u.group(1)) if u else 0
    return out


def expected(thread, k):
    """(trace id, span id, attributes) of span K of THREAD, as the workload writes them."""
    tag = TAGS[thread]
    attrs = {} if k == 9 else {"http.route": f"/span/{k}", "worker": thread}
    return f"{tag:02x}" * 8 + f"{k:02x}" * 8, f"{0x11 * k:02x}" * 8, attrs


def main():
    ap = argparse.ArgumentParser(description="Checks the thread contexts of a spanctx recording.")
    ap.add_argument("jfr")
    ap.add_argument("--workload-output", required=True)
    ap.add_argument("--summary", required=True, help="lfr record's standard error")
    ap.add_argument("--jfr-tool", default="jfr")
    a = ap.parse_args()
    try:
        threads = parse_output(a.workload_output)
        summary = parse_summary(a.summary)
        evs = jfr_events(a.jfr_tool, a.jfr,
                         ["jdk.ExecutionSample", "profiler.WallClockSample", "lfr.TraceContext"])
    except (OSError, ValueError, JfrError) as e:
        print(f"thread-ctx-check: {e}", file=sys.stderr)
        return 2
    ctx = {}
    nctx = 0
    for t, v in evs:
        if t != "lfr.TraceContext":
            continue
        nctx += 1
        c = v["context"]
        attrs = baggage(c.get("attributes"))
        ctx[(tid(v, "sampledThread"), v["startTime"])] = (c["traceId"], c["spanId"], attrs)
    fails = []
    count = {}  # (thread, what) -> samples
    unnamed = 0  # attributes of contexts whose ids are a span's but whose attributes were left out
    used = set()  # the contexts a sample found (a CPU sample and its wall one share one)
    # a CPU sample's profiler.WallClockSample (--wall) is the same sample: counted once
    cpu = {(tid(v, "sampledThread"), v["startTime"]) for t, v in evs if t == "jdk.ExecutionSample"}
    for t, v in evs:
        if t == "lfr.TraceContext" or (t == "profiler.WallClockSample" and
                                       (tid(v, "sampledThread"), v["startTime"]) in cpu):
            continue
        th = threads.get(tid(v, "sampledThread"))
        if not th:
            continue
        key = (tid(v, "sampledThread"), v["startTime"])
        c = ctx.get(key)
        if c:
            used.add(key)
        fns = names(v, False)
        span = next((int(m.group(1)) for m in map(SPAN_FN.match, fns) if m), None)
        where = (f"span {span}" if span else "warm" if "warm" in fns else
                 "no_span" if "no_span" in fns else "elsewhere")
        what = (th, where, "context" if c else "none")
        count[what] = count.get(what, 0) + 1
        if th == "ctx-none":
            if c:
                fails.append(f"ctx-none has a context at {v['startTime']}: {c}")
            continue
        if c and c[2] == {} and c[:2] in [expected(th, k)[:2] for k in (1, 2, 3)]:
            # its ids, its attributes left out: their keys were not in the process's key map
            # when the recorder read it (the summary counts them)
            unnamed += 2
            c = next(expected(th, k) for k in (1, 2, 3) if c[:2] == expected(th, k)[:2])
        if c and c not in [expected(th, k) for k in (1, 2, 3, 9)]:
            fails.append(f"{th}: a context that is no span's (torn?) at {v['startTime']}: {c}")
        elif span and c and c != expected(th, span):
            fails.append(f"{th}: a sample in span {span} with the context {c}")
        elif span and not c and th != "ctx-rewrite":
            fails.append(f"{th}: a sample in span {span} without a context at {v['startTime']}")
        elif where == "warm" and c and c != expected(th, 9):
            fails.append(f"{th}: a sample in warm with the context {c}")
    for k in sorted(count):
        print(f"  {k[0]:12} {k[1]:10} {k[2]:8} {count[k]}")
    for th in ("ctx-swap", "ctx-valid", "ctx-rewrite"):
        n = sum(count.get((th, f"span {k}", "context"), 0) for k in (1, 2, 3))
        if not n:
            fails.append(f"{th}: no sample in a span with its context")
        print(f"  {th}: {n} samples in spans, each with its span's context")
    none_samples = sum(n for (th, w, c), n in count.items() if th == "ctx-none" and w == "no_span")
    invalid = sum(n for (th, w, c), n in count.items()
                  if th == "ctx-rewrite" and w.startswith("span") and c == "none")
    print(f"  file: {nctx} lfr.TraceContext events, {len(used)} of them a sample's; "
          f"{none_samples} samples in no_span, {invalid} of ctx-rewrite in a span without one")
    print(f"  lfr record: {summary}")
    unused = [k for k in ctx if k not in used]
    if unused:
        fails.append(f"{len(unused)} lfr.TraceContext events of no sample, e.g. {unused[0]}")
    if unnamed > summary["unnamed"]:
        fails.append(f"{unnamed} attributes missing from span contexts, the summary counts "
                     f"{summary['unnamed']} left out")
    if nctx != summary["with"]:
        fails.append(f"{nctx} lfr.TraceContext events, the summary says {summary['with']}")
    if not none_samples:
        fails.append("no sample of ctx-none in no_span")
    if summary["null"] < none_samples:
        fails.append(f"{none_samples} samples in no_span, {summary['null']} counted null")
    if summary["invalid"] < invalid:
        fails.append(f"{invalid} samples of ctx-rewrite without a context, "
                     f"{summary['invalid']} counted invalid")
    for f in fails[:20]:
        print(f"thread-ctx-check: FAILED: {f}")
    if not fails:
        print("thread-ctx-check: passed")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
