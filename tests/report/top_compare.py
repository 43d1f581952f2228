#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compares the top functions by self value of `lfr report` with those another tool shows.

    top_compare.py LFR-TEXT pprof PPROF-TOP-OUTPUT
    top_compare.py LFR-TEXT speedscope SPEEDSCOPE-DOM
    top_compare.py LFR-TEXT html HTML-DOM          (lfr report --format html's table)

The first K rows of lfr report's "Top functions by self" table (K <= 10, cut before a tie so that
the order within equal values does not matter) must be, as a set of (name, self, total), the first
K rows of the other tool's table sorted by self.  Prints the compared rows; exits 1 when they differ.
"""
import html
import re
import sys


def lfr_rows(path):
    rows, on = [], False
    for line in open(path):
        if line.startswith("Top functions by self"):
            on = True
            continue
        if on:
            m = re.match(r"\s*(\d+)\s+[\d.]+%\s+(\d+)\s+[\d.]+%\s+(.*\S)\s*$", line)
            if m:
                rows.append((m.group(3), int(m.group(1)), int(m.group(2))))
            elif rows:
                break
    return rows


def pprof_rows(path):
    rows = []
    for line in open(path):
        m = re.match(r"\s*(\d+)\s+[\d.]+%\s+[\d.]+%\s+(\d+)\s+[\d.]+%\s+(.*\S)\s*$", line)
        if m:
            rows.append((m.group(3), int(m.group(1)), int(m.group(2))))
    return rows


def speedscope_rows(path):
    dom = open(path).read()
    rows = []
    # sandwich view rows: Total, Self, then the symbol name after its colour swatch
    for m in re.finditer(r"<tr[^>]*><td[^>]*>(\d+) \([^<]*<.*?</td><td[^>]*>(\d+) \([^<]*<.*?"
                         r"</td><td[^>]*><span[^>]*></span>([^<]*)</td></tr>", dom):
        rows.append((html.unescape(m.group(3)), int(m.group(2)), int(m.group(1))))
    return rows


def html_rows(path):
    dom = open(path).read()
    return [(html.unescape(m.group(3)), int(m.group(1)), int(m.group(2))) for m in re.finditer(
        r'<tr data-self="(\d+)" data-total="(\d+)">(?:<td>[^<]*</td>){4}<td>([^<]*)</td></tr>', dom)]


def main():
    ours = lfr_rows(sys.argv[1])
    read = {"pprof": pprof_rows, "speedscope": speedscope_rows, "html": html_rows}[sys.argv[2]]
    theirs = read(sys.argv[3])
    theirs.sort(key=lambda r: -r[1])
    k = min(10, len(ours))
    while 0 < k < len(ours) and ours[k - 1][1] == ours[k][1]:
        k -= 1
    if k == 0 or len(theirs) < k:
        print(f"too few rows: lfr {len(ours)}, {sys.argv[2]} {len(theirs)}")
        return 1
    # the text view and the HTML table mark kernel functions with " [kernel]"; pprof and speedscope
    # keep the plain name (pprof has the kind as the function's file name)
    if sys.argv[2] != "html":
        ours = [(n[:-9] if n.endswith(" [kernel]") else n, s, t) for n, s, t in ours]
    a, b = sorted(ours[:k]), sorted(theirs[:k])
    if a != b:
        print(f"top {k} differ:\n  lfr report: {a}\n  {sys.argv[2]}: {b}")
        return 1
    print(f"top {k}: " + ", ".join(f"{n} {s}/{t}" for n, s, t in ours[:k]))
    return 0


sys.exit(main())
