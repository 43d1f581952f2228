# SPDX-License-Identifier: GPL-2.0
"""What the scenario checks read from `jfr print --json` (the JDK's own reading of a recording):
its events, their durations, stacks and threads."""
import datetime
import json
import re
import struct
import subprocess


class JfrError(Exception):
    """jfr could not print the file."""


def events(jfr_tool, path, types):
    """The events of the given types, as (type, values) pairs in the file's order."""
    p = subprocess.run([jfr_tool, "print", "--json", "--stack-depth", "300", "--events",
                        ",".join(types), path], capture_output=True, text=True)
    if p.returncode != 0:
        raise JfrError(f"{jfr_tool} print failed: {p.stderr.strip()}")
    return [(e["type"], e["values"]) for e in json.loads(p.stdout)["recording"]["events"]]


def nanos(v):
    """A duration as jfr print --json writes it: a number of ns, or ISO-8601 (PT0.300123S)."""
    if isinstance(v, (int, float)):
        return int(v)
    m = re.fullmatch(r"(-)?PT(?:(\d+)H)?(?:(\d+)M)?(?:([\d.]+)S)?", v)
    if not m:
        raise ValueError(f"not a duration: {v!r}")
    ns = (int(m.group(2) or 0) * 3600 + int(m.group(3) or 0) * 60) * 10**9
    if m.group(4):
        whole, _, frac = m.group(4).partition(".")
        ns += int(whole) * 10**9 + int((frac + "000000000")[:9])
    return -ns if m.group(1) else ns


def frames(v):
    """The frames of an event's stack, leaf first."""
    return (v.get("stackTrace") or {}).get("frames") or []


def names(v, kernel):
    """The names of an event's kernel frames (kernel true) or of its other frames, leaf first."""
    return [f["method"]["name"] for f in frames(v) if (f.get("type") == "Kernel") == kernel]


def tid(v, field):
    """The OS thread id of an event's thread field (eventThread, sampledThread)."""
    return (v.get(field) or {}).get("osThreadId")


def chunk_clock(path):
    """(startNanos, startTicks, ticksPerSecond) of the file's first chunk header."""
    with open(path, "rb") as f:
        h = f.read(64)
    if len(h) < 64 or h[:4] != b"FLR\0":
        raise ValueError(f"{path}: not a JFR file")
    start_nanos, _, start_ticks, tps = struct.unpack(">qqqq", h[32:64])
    return start_nanos, start_ticks, tps


def ticks_of(v, clock):
    """An instant as lfr's ticks (CLOCK_MONOTONIC ns): printed as ticks, or as a UTC time."""
    if isinstance(v, (int, float)):
        return int(v)
    m = re.fullmatch(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?Z", v)
    if not m:
        raise ValueError(f"not an instant: {v!r}")
    secs = int(datetime.datetime.fromisoformat(m.group(1) + "+00:00").timestamp())
    epoch = secs * 10**9 + int(((m.group(2) or "") + "000000000")[:9])
    start_nanos, start_ticks, tps = clock
    return start_ticks + (epoch - start_nanos) * tps // 10**9
