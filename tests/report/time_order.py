#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Checks that a `lfr report --format speedscope` file lists the samples in time order.

    time_order.py JFR-PRINT-JSON SPEEDSCOPE-JSON

JFR-PRINT-JSON is `jfr print --json --events jdk.ExecutionSample FILE`.  Its samples, sorted by
startTime and grouped by equal startTime, must match the speedscope profile's samples in order:
group after group, the same multiset of leaf function names ("package.Class.method").
"""
import collections
import json
import sys


def main():
    events = json.load(open(sys.argv[1]))["recording"]["events"]
    jfr = []
    for e in events:
        st = e["values"].get("stackTrace")
        if not st or not st["frames"]:
            continue
        m = st["frames"][0]["method"]
        jfr.append((e["values"]["startTime"], m["type"]["name"].replace("/", ".") + "." + m["name"]))
    jfr.sort(key=lambda x: x[0])
    ss = json.load(open(sys.argv[2]))
    frames = [f["name"] for f in ss["shared"]["frames"]]
    prof = ss["profiles"][0]
    leaves = [frames[s[-1]] for s in prof["samples"]]
    if len(leaves) != len(jfr):
        print(f"{len(leaves)} samples in the speedscope file, {len(jfr)} in the recording")
        return 1
    i, groups = 0, 0
    while i < len(jfr):
        j = i
        while j < len(jfr) and jfr[j][0] == jfr[i][0]:
            j += 1
        want = collections.Counter(leaf for _, leaf in jfr[i:j])
        got = collections.Counter(leaves[i:j])
        if want != got:
            print(f"sample {i} (time {jfr[i][0]}): speedscope has {dict(got)}, the recording {dict(want)}")
            return 1
        i, groups = j, groups + 1
    print(f"{len(jfr)} samples at {groups} distinct times, in time order")
    return 0


sys.exit(main())
