#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turns bench/export-cost's lines into a Markdown table of medians (see bench/export-cost).

Usage: export-cost-report.py EXPORT_COST_TXT
"""
import re
import statistics
import sys


def main():
    runs = []
    for line in open(sys.argv[1], encoding='utf-8', errors='replace'):
        if line.startswith('export-cost '):
            r = dict(re.findall(r'([\w.-]+)=(\S+)', line))
            runs.append({k: (int(v) if v.lstrip('-').isdigit() else v) for k, v in r.items()})
    exp = [r for r in runs if r.get('mode') == 'export' and r.get('sent_otlp', 0) > 0]
    rec = [r for r in runs if r.get('mode') == 'record' and r.get('taken', 0) > 0]
    if not exp or not rec:
        sys.exit('export-cost: no complete run with and without exports')
    med = statistics.median
    rec_ns = med(r['recorder_ns'] / r['taken'] for r in rec)
    rec_exp_ns = med(r['recorder_ns'] / r['taken'] for r in exp)
    otlp = med(r['otlp_ns'] / r['sent_otlp'] for r in exp)
    pyro = med(r['pyroscope_ns'] / r['sent_pyroscope'] for r in exp)
    print('| | ns of CPU per sample (median) | share of the recorder\'s |')
    print('|---|---:|---:|')
    print('| the recorder without exports (reading, naming, writing) | %.0f | 100 %% |' % rec_ns)
    print('| the recorder, its exports running | %.0f | %.0f %% |' % (rec_exp_ns, 100 * rec_exp_ns / rec_ns))
    print('| the OTLP export (`lfr-export-otlp`) | %.0f | %.1f %% |' % (otlp, 100 * otlp / rec_ns))
    print('| the Pyroscope export (`lfr-export-pyro`) | %.0f | %.1f %% |' % (pyro, 100 * pyro / rec_ns))
    print()
    print('Runs: %d without exports, %d with; samples per measured window (median): %d taken, '
          '%d delivered to each backend.' % (len(rec), len(exp), med(r['taken'] for r in exp),
                                             med(r['sent_otlp'] for r in exp)))
    print()
    print('Per run (ns/sample): without exports: ' +
          ', '.join('%.0f' % (r['recorder_ns'] / r['taken']) for r in rec) +
          '; with: ' + '; '.join('recorder %.0f, OTLP %.0f, Pyroscope %.0f' % (
              r['recorder_ns'] / r['taken'], r['otlp_ns'] / r['sent_otlp'],
              r['pyroscope_ns'] / r['sent_pyroscope']) for r in exp))


if __name__ == '__main__':
    main()
