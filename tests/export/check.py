#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""What the test receivers got from lfr's exports, against what the JDK reads in the recordings.

    check.py --truth SAMPLES [--otlp DIR] [--pyroscope DIR] [--service PID=NAME ...]
             [--label PID=KEY=VALUE ...] [--host NAME] [--once] [--alone REGEX]

SAMPLES: the output of Samples.java over the recordings (one line per event: FILE TYPE PID NS
DURATION, and "period FILE NS").  DIR: a receiver's directory (receiver.py), whose requests
answered 2xx count.  OTLP requests are decoded by `protoc --decode` with otlp_profiles.proto
(the specification's field numbers, tests/export's own schema, not lfr's encoder); Pyroscope
uploads are unpacked (multipart form, gzip) and their recordings read by Samples.java.

Checks, per process: the CPU samples (pid, time) the backend got are exactly the recordings'
(each once: none lost, none twice), their CPU time is their count times the period, the wall
and off-CPU ones too; each resource (upload) carries the process's service and labels; each
OTLP profile_id and each Pyroscope upload's series and time span come once; the OTLP sample events
of a thread at an instant the recordings give a trace context (lfr.TraceContext) for, and only
those, link to a Link of its trace and span ids and carry its attributes.  With --alone, no
Pyroscope upload carries a match of REGEX (a process name) but its own series' service name: the
constants of other series' processes stay out of it.  Prints what it
compared and "check: ok", or the differences and exits 1.
"""
import argparse
import collections
import email.parser
import email.policy
import glob
import gzip
import json
import os
import re
import subprocess
import sys
import tempfile
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
failures = []


def fail(msg):
    failures.append(msg)
    print("check: FAILED: " + msg)


def baggage(s):
    return {urllib.parse.unquote(k): urllib.parse.unquote(v)
            for k, v in (kv.split("=", 1) for kv in s.split(",") if kv)}


def read_truth(path):
    ev = collections.defaultdict(collections.Counter)  # type -> Counter((pid, ns, dur))
    periods = set()
    contexts = {}  # (pid, tid, ns) -> (trace id, span id, attributes)
    for line in open(path):
        w = line.split()
        if w[0] == "period":
            periods.add(int(w[2]))
            continue
        if w[0] == "context":
            contexts[(int(w[2]), int(w[3]), int(w[4]))] = (w[5], w[6], baggage(w[7] if len(w) > 7 else ""))
            continue
        ev[w[1]][(int(w[2]), int(w[3]), int(w[4]))] += 1
    return ev, periods, contexts


def delivered(d):
    for meta_path in sorted(glob.glob(os.path.join(d, "req-*.json"))):
        meta = json.load(open(meta_path))
        if 200 <= meta["code"] < 300:
            body = open(meta_path[:-5] + ".body", "rb").read()
            yield meta, body


# protobuf text format, as protoc --decode prints it
TOKEN = re.compile(r'\s*(?:(\})|([A-Za-z_][A-Za-z0-9_]*)\s*(\{|:\s*("(?:[^"\\]|\\.)*"|[^\s]+)))')


def unquote(s):
    return bytes(s[1:-1], "latin-1").decode("unicode_escape").encode("latin-1")


def parse_text(text):
    root, stack, pos = {}, [], 0
    cur = root
    while True:
        m = TOKEN.match(text, pos)
        if not m:
            break
        pos = m.end()
        if m.group(1):
            cur = stack.pop()
            continue
        key = m.group(2)
        if m.group(3) == "{":
            child = {}
            cur.setdefault(key, []).append(child)
            stack.append(cur)
            cur = child
        else:
            v = m.group(4)
            cur.setdefault(key, []).append(unquote(v) if v.startswith('"') else v)
    if text[pos:].strip():
        raise ValueError("protoc output not understood at: " + text[pos:pos + 80])
    return root


def one(msg, key, default=None):
    return msg.get(key, [default])[0]


def any_value(v):
    if "string_value" in v:
        return one(v, "string_value").decode()
    return int(one(v, "int_value", "0"))


def otlp(d, want, args):
    got = collections.defaultdict(collections.Counter)
    linked = collections.Counter()  # (kind, pid, tid, ns, trace id, span id)
    ids = collections.Counter()
    resources = {}
    for meta, body in delivered(d):
        if meta["path"] != "/v1development/profiles":
            continue
        if meta["headers"].get("content-encoding") == "gzip":
            body = gzip.decompress(body)
        if meta["headers"].get("content-type") != "application/x-protobuf":
            fail("request %d: content-type %s" % (meta["seq"], meta["headers"].get("content-type")))
        text = subprocess.run(["protoc", "-I" + HERE, "--decode=lfrtest.ExportProfilesServiceRequest",
                               "otlp_profiles.proto"], input=body, capture_output=True, check=True).stdout
        req = parse_text(text.decode("latin-1"))
        dic = one(req, "dictionary", {})
        strings = [s.decode() for s in dic.get("string_table", [])]
        attrs = [(strings[int(one(a, "key_strindex", "0"))], any_value(one(a, "value", {})))
                 for a in dic.get("attribute_table", [])]
        links = [(one(l, "trace_id", b"").hex(), one(l, "span_id", b"").hex()) for l in dic.get("link_table", [])]
        if not strings or strings[0] != "" or not attrs or attrs[0] != ("", 0) or not links or links[0] != ("", ""):
            fail("request %d: the dictionary's tables do not start with their zero value" % meta["seq"])
        for trace, span in links[1:]:
            if len(trace) != 32 or len(span) != 16:
                fail("request %d: a link of a %d-byte trace id, %d-byte span id" % (meta["seq"], len(trace) // 2, len(span) // 2))
        for rp in req.get("resource_profiles", []):
            res = {one(kv, "key").decode(): any_value(one(kv, "value", {}))
                   for kv in one(rp, "resource", {}).get("attributes", [])}
            pid = res.get("process.pid", -1)
            resources.setdefault(pid, res)
            for sp in rp.get("scope_profiles", []):
                if one(one(sp, "scope", {}), "name", b"").decode() != "lfr":
                    fail("scope is not lfr")
                for prof in sp.get("profiles", []):
                    st = one(prof, "sample_type", {})
                    kind = strings[int(one(st, "type_strindex", "0"))]
                    unit = strings[int(one(st, "unit_strindex", "0"))]
                    ids[one(prof, "profile_id", b"")] += 1
                    period = int(one(prof, "period", "0"))
                    for s in prof.get("samples", []):
                        ts = [int(t) for t in s.get("timestamps_unix_nano", [])]
                        vals = [int(v) for v in s.get("values", [])]
                        names = {attrs[int(i)][0]: attrs[int(i)][1] for i in s.get("attribute_indices", [])}
                        if len(ts) != len(vals):
                            fail("a %s sample with %d timestamps and %d values" % (kind, len(ts), len(vals)))
                        if "thread.id" not in names or "thread.name" not in names:
                            fail("a %s sample without thread.id and thread.name" % kind)
                        link = int(one(s, "link_index", "0"))
                        if link >= len(links):
                            fail("a %s sample's link_index %d past the link_table" % (kind, link))
                            link = 0
                        for t in ts:
                            ctx = want["contexts"].get((pid, names.get("thread.id"), t))
                            if link:
                                linked[(kind, pid, names.get("thread.id"), t) + links[link]] += 1
                            if link and ctx and any(names.get(k) != v for k, v in ctx[2].items()):
                                fail("a %s sample in span %s without its attributes %s" % (kind, ctx[1], ctx[2]))
                        for t, v in zip(ts, vals):
                            if kind in ("cpu", "wall"):
                                if unit != "nanoseconds" or v != period or v not in want["periods"]:
                                    fail("a %s sample of %d %s, period %d" % (kind, v, unit, period))
                                got[kind][(pid, t, 0)] += 1
                            elif kind == "off_cpu":
                                got[kind][(pid, t, v)] += 1
                            else:
                                fail("a profile of type %s/%s" % (kind, unit))
    twice = [i for i, n in ids.items() if n > 1]
    if twice:
        fail("%d profile_id values came more than once" % len(twice))
    compare("otlp", got, want, resources, args)
    compare_links(linked, want)


def compare_links(linked, want):
    """Each sample event at a context's (thread, instant) links to it; no other does."""
    truth, expect = want["events"], collections.Counter()
    for (pid, tid, ns), (trace, span, _) in want["contexts"].items():
        n = {"cpu": truth.get("jdk.ExecutionSample", {}).get((pid, ns, 0), 0),
             "wall": truth.get("profiler.WallClockSample", {}).get((pid, ns, 0), 0),
             "off_cpu": sum(c for (p, t, _), c in truth.get("lfr.OffCpu", {}).items() if (p, t) == (pid, ns))}
        for kind, c in n.items():
            if c:
                expect[(kind, pid, tid, ns, trace, span)] += c
    per = collections.Counter()
    for key, n in linked.items():
        per[key[0]] += n
    print("check: otlp links: %d sample events in a trace context got, %d in the recordings; per kind %s; spans %s" %
          (sum(linked.values()), sum(expect.values()), dict(sorted(per.items())),
           sorted({k[5] for k in linked})))
    if linked != expect:
        missing, extra = expect - linked, linked - expect
        fail("otlp links: %d missing (e.g. %s), %d extra or wrong (e.g. %s)" %
             (sum(missing.values()), list(missing)[:2], sum(extra.values()), list(extra)[:2]))


def multipart_jfr(meta, body):
    ctype = meta["headers"].get("content-type", "")
    msg = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
        b"Content-Type: " + ctype.encode() + b"\r\n\r\n" + body)
    for part in msg.iter_parts():
        if part.get_param("name", header="content-disposition") == "jfr":
            data = part.get_payload(decode=True)
            return gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data
    return None


def pyroscope(d, want, args):
    got = collections.defaultdict(collections.Counter)
    resources, series, uploads, files = {}, {}, collections.Counter(), []
    with tempfile.TemporaryDirectory(prefix="lfr-pyro-") as tmp:
        pyroscope_read(d, want, args, tmp, got, resources, series, uploads, files)
    # Pyroscope's wall profile is its parser's reading: the uploads carry the events, compared
    compare("pyroscope", got, want, resources, args, wall_as_events=True)


def pyroscope_read(d, want, args, tmp, got, resources, series, uploads, files):
    inflated = [0]
    for meta, body in delivered(d):
        if meta["path"] != "/ingest":
            continue
        q = urllib.parse.parse_qs(meta["query"])
        name = q["name"][0]
        if q.get("format") != ["jfr"] or q.get("spyName") != ["lfr"]:
            fail("upload %d: format %s spyName %s" % (meta["seq"], q.get("format"), q.get("spyName")))
        rate = int(q.get("sampleRate", ["0"])[0])
        if not any(rate == round(1e9 / p) for p in want["periods"]):
            fail("upload %d: sampleRate %d, not 1e9 / the period" % (meta["seq"], rate))
        uploads[(name, q["from"][0], q["until"][0])] += 1
        m = re.fullmatch(r"([^{}]*)\{(.*)\}", name)
        labels = dict(kv.split("=", 1) for kv in m.group(2).split(",") if kv) if m else {}
        labels["service.name"] = m.group(1) if m else "?"
        path = os.path.join(tmp, "upload-%06d.jfr" % meta["seq"])
        data = multipart_jfr(meta, body)
        if data is None:
            fail("upload %d has no jfr field" % meta["seq"])
            continue
        open(path, "wb").write(data)
        files.append((path, labels))
        inflated[0] += len(data)
        if args.alone:
            others = set(re.findall(args.alone.encode(), data)) - {labels["service.name"].encode()}
            if others:
                fail("upload %d (%s) carries %d names of other series, e.g. %s" %
                     (meta["seq"], labels["service.name"], len(others), sorted(others)[0].decode()))
    if files:
        print("check: pyroscope: %d uploads, %d bytes of JFR" % (len(files), inflated[0]))
    twice = [u for u, n in uploads.items() if n > 1]
    if twice:
        fail("%d uploads came more than once, e.g. %s" % (len(twice), twice[0]))
    if files:
        out = subprocess.run(["java", os.path.join(HERE, "Samples.java")] + [f for f, _ in files],
                             capture_output=True, check=True, text=True).stdout
        by_file = dict(files)
        for line in out.splitlines():
            w = line.split()
            if w[0] in ("period", "context"):
                continue
            pid = int(w[2])
            kind = {"jdk.ExecutionSample": "cpu", "profiler.WallClockSample": "wall",
                    "jdk.NativeMethodSample": "wall", "lfr.OffCpu": "off_cpu"}[w[1]]
            got[kind][(pid, int(w[3]), int(w[4]) if kind == "off_cpu" else 0)] += 1
            # a process that exec'd is another process by its name (its series may differ)
            proc = (pid, line.split(" ", 5)[5] if len(w) > 5 else "?")
            prev = series.setdefault(proc, by_file[w[0]])
            if prev != by_file[w[0]]:
                fail("process %d (%s) in two series: %s and %s" % (pid, proc[1], prev, by_file[w[0]]))
            resources.setdefault(pid, by_file[w[0]])


def compare(name, got, want, resources, args, wall_as_events=False):
    truth = want["events"]
    expect = {
        "cpu": truth.get("jdk.ExecutionSample", collections.Counter()),
        "off_cpu": truth.get("lfr.OffCpu", collections.Counter()),
    }
    # lfr's wall-clock samples: profiler.WallClockSample; in files of earlier versions the samples
    # off the CPU (jdk.NativeMethodSample) with the CPU samples
    wall = truth.get("profiler.WallClockSample", collections.Counter())
    native = truth.get("jdk.NativeMethodSample", collections.Counter())
    if wall or wall_as_events:
        expect["wall"] = wall + native
    else:
        expect["wall"] = native + expect["cpu"] if native else collections.Counter()
    for kind in ("cpu", "wall", "off_cpu"):
        g, e = got.get(kind, collections.Counter()), expect[kind]
        per = collections.Counter()
        for (pid, _, _), n in g.items():
            per[pid] += n
        print("check: %s %s: %d events got, %d in the recordings; per process %s" %
              (name, kind, sum(g.values()), sum(e.values()), dict(sorted(per.items()))))
        if g != e:
            missing, extra = e - g, g - e
            fail("%s %s: %d missing (e.g. %s), %d extra or twice (e.g. %s)" %
                 (name, kind, sum(missing.values()), list(missing)[:2], sum(extra.values()), list(extra)[:2]))
    for spec in args.service:
        pid, svc = spec.split("=", 1)
        if resources.get(int(pid), {}).get("service.name") != svc:
            fail("%s: process %s's service.name is %s, not %s" % (name, pid, resources.get(int(pid), {}).get("service.name"), svc))
    for spec in args.label:
        pid, key, value = spec.split("=", 2)
        if str(resources.get(int(pid), {}).get(key)) != value:
            fail("%s: process %s's %s is %s, not %s" % (name, pid, key, resources.get(int(pid), {}).get(key), value))
    if name == "otlp":
        for pid, res in resources.items():
            if pid >= 0 and res.get("process.pid") != pid:
                fail("otlp: a resource's process.pid %s" % res.get("process.pid"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--truth", required=True)
    ap.add_argument("--otlp")
    ap.add_argument("--pyroscope")
    ap.add_argument("--service", action="append", default=[])
    ap.add_argument("--label", action="append", default=[])
    ap.add_argument("--alone")
    args = ap.parse_args()
    events, periods, contexts = read_truth(args.truth)
    want = {"events": events, "periods": periods, "contexts": contexts}
    if args.otlp:
        otlp(args.otlp, want, args)
    if args.pyroscope:
        pyroscope(args.pyroscope, want, args)
    if failures:
        return 1
    print("check: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
