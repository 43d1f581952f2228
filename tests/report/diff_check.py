#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Checks the changes `lfr report --diff` shows against the split genjfr --split was given.

    diff_check.py BASE-GENJFR-OUTPUT NEW-GENJFR-OUTPUT text LFR-DIFF-TEXT
    diff_check.py BASE-GENJFR-OUTPUT NEW-GENJFR-OUTPUT html HTML-DOM
    diff_check.py BASE-GENJFR-OUTPUT NEW-GENJFR-OUTPUT pprof PPROF-TOP

genjfr prints "split NAME PERCENT" for each leaf; the change of NAME's self share must be NEW's
percentage minus BASE's within 2 points, in the text view's "Largest changes of self share" table
in the HTML page's change table (its rows' data-dself, as rendered), or in `go tool pprof -top` of
the --format pprof profile (each function's flat value over the total pprof gives, which is BASE's
scaled to NEW's); pprof leaves out a function whose values all add up to 0, which is taken as a
change of 0 there.  With html the page must
also have drawn frames that grew in red and frames that shrank in blue (the self-test's data-grew,
data-shrank; it fails on a frame drawn in the other colour).
Prints the compared values; exits 1 when one is off or missing.
"""
import html
import re
import sys


def split_of(path):
    out = {}
    for line in open(path):
        f = line.split()
        if len(f) == 3 and f[0] == "split":
            out[f[1]] = float(f[2])
    return out


def text_deltas(path):
    got, on = {}, False
    row = re.compile(r"\s*[\d.]+%\s+[\d.]+%\s+([+-][\d.]+)\s+[\d.]+%\s+[\d.]+%\s+[+-][\d.]+\s+(\S+)")
    for line in open(path):
        if line.startswith("Largest changes of self share"):
            on = True
        elif on and not line.strip():
            break
        elif on:
            m = row.match(line)
            if m:
                got.setdefault(m.group(2), float(m.group(1)))
    return got


def pprof_deltas(path):
    got, total = {}, None
    row = re.compile(r"\s*(-?\d+)\s+[\d.]+%\s+-?[\d.]+%\s+-?\d+\s+[\d.]+%\s+(\S+)$")
    for line in open(path):
        m = re.search(r"Total samples = (\d+)", line)
        if m:
            total = int(m.group(1))
        m = row.match(line)
        if m and total:
            got.setdefault(m.group(2), 100.0 * int(m.group(1)) / total)
    return got


def html_deltas(path):
    dom = open(path).read()
    body = dom[dom.find('<table id="diff"'):]
    body = body[:body.find("</table>")]
    got = {}
    for m in re.finditer(r'<tr data-name="([^"]*)" data-dself="([^"]*)"', body):
        got.setdefault(html.unescape(m.group(1)), float(m.group(2)))
    return got, dom


def main():
    base, new, mode, path = sys.argv[1:5]
    b, n = split_of(base), split_of(new)
    if not b or set(b) != set(n):
        print("no split in the genjfr outputs")
        return 1
    problems = []
    if mode == "html":
        got, dom = html_deltas(path)
        for what in ("grew", "shrank"):
            m = re.search(r'data-%s="(\d+)"' % what, dom)
            if not m or int(m.group(1)) == 0:
                problems.append("no frame drawn as %s in its colour" % what)
    elif mode == "pprof":
        got = pprof_deltas(path)
    else:
        got = text_deltas(path)
    shown = []
    for name in sorted(b, key=lambda k: -b[k]):
        want = n[name] - b[name]
        if name not in got and mode == "pprof":
            got[name] = 0.0
        if name not in got:
            problems.append("%s missing" % name)
            continue
        shown.append("%s %.0f->%.0f: %+.2f pp (want %+.0f)" % (name, b[name], n[name], got[name], want))
        if abs(got[name] - want) > 2:
            problems.append("%s: %+.2f, want %+.0f" % (name, got[name], want))
    print("; ".join(shown + problems))
    return 1 if problems else 0


sys.exit(main())
