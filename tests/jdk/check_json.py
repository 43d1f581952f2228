# SPDX-License-Identifier: GPL-2.0
"""Checks `jfr print --json` output of a gen_recording file.

usage: python3 check_json.py JSON SAMPLES THREAD,THREAD,... [stacks]
With "stacks", also requires the known user stack (main -> a -> b -> leaf) and the kernel stack
(ksys_read <- entry_SYSCALL_64 <- libc read <- main) with their names and frame types.
"""
import json
import sys


def frames(ev):
    st = ev["values"].get("stackTrace")
    if not st:
        return []
    return [(f["method"]["type"]["name"], f["method"]["name"], f["type"]) for f in st["frames"]]


def main():
    doc = json.load(open(sys.argv[1]))
    want = int(sys.argv[2])
    threads = set(sys.argv[3].split(","))
    events = [e for e in doc["recording"]["events"] if e["type"] == "jdk.ExecutionSample"]
    errors = []
    if len(events) != want:
        errors.append("%d samples, want %d" % (len(events), want))
    seen = {e["values"]["sampledThread"]["osName"] for e in events}
    if seen != threads:
        errors.append("threads %s, want %s" % (sorted(seen), sorted(threads)))
    if len(sys.argv) > 4 and sys.argv[4] == "stacks":
        user = [("gen_workload", "leaf", "Native"), ("gen_workload", "b", "Native"),
                ("gen_workload", "a", "Native"), ("gen_workload", "main", "Native")]
        kernel = [("kernel", "ksys_read", "Kernel"), ("kernel", "entry_SYSCALL_64", "Kernel"),
                  ("libc.so.6", "read", "Native"), ("gen_workload", "main", "Native")]
        stacks = [frames(e) for e in events]
        if user not in stacks:
            errors.append("no sample with main -> a -> b -> leaf")
        if kernel not in stacks:
            errors.append("no sample with the kernel stack")
        bad = [e for e in events if e["values"]["sampledThread"]["osName"] == "worker-1"
               and frames(e) != user]
        if bad:
            errors.append("%d worker-1 samples with another stack" % len(bad))
    for e in errors:
        print("json: " + e)
    sys.exit(1 if errors else 0)


main()
