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
    none = {r['run']: r for r in runs if r.get('mode') == 'none' and r.get('ops', 0) > 0}
    if not exp or not rec:
        sys.exit('export-cost: no complete run with and without exports')
    med = statistics.median

    def lost(r):
        """What lfr cost the workload per sample taken (ns of CPU, both CPUs busy): the work
        it lost against the run without lfr, at that run's rate."""
        base = none.get(r['run'])
        if not base or 'ops' not in r:
            return None
        rate, own = r['ops'] / float(r['seconds']), base['ops'] / float(base['seconds'])
        return (1 - rate / own) * 2 * float(r['seconds']) * 1e9 / r['taken']

    rec_ns = med(r['recorder_ns'] / r['taken'] for r in rec)
    rec_exp_ns = med(r['recorder_ns'] / r['taken'] for r in exp)
    otlp = med(r['otlp_ns'] / r['sent_otlp'] for r in exp)
    pyro = med(r['pyroscope_ns'] / r['sent_pyroscope'] for r in exp)
    whole = [x for x in (lost(r) for r in rec) if x is not None]
    whole_ns = med(whole) if whole else None
    print('| | ns of CPU per sample (median) | share of the recorder\'s threads | '
          'share of lfr\'s whole cost |')
    print('|---|---:|---:|---:|')

    def row(what, ns):
        print('| %s | %.0f | %.1f %% | %s |' % (what, ns, 100 * ns / rec_ns,
                                             '%.1f %%' % (100 * ns / whole_ns) if whole_ns else '-'))

    if whole_ns:
        row('lfr\'s whole cost without exports: the work the workload lost, module included',
            whole_ns)
    row('the recorder\'s threads without exports (reading, naming, writing)', rec_ns)
    row('the recorder\'s threads, its exports running', rec_exp_ns)
    work = [r for r in rec + exp if r.get('taken_work', 0) > 0]
    for what, mode in (('without exports', 'record'), ('its exports running', 'export')):
        rs = [r for r in work if r['mode'] == mode]
        if rs:
            row('the recorder\'s threads over the workload alone, %s' % what,
                med(r['recorder_work_ns'] / r['taken_work'] for r in rs))
    unwind = [r.get('unwind_ns', 0) / r['taken'] for r in rec + exp]
    row('the unwind-table loader (`lfr-unwind`, per new object; not in the threads above)',
        med(unwind))
    row('the OTLP export (`lfr-export-otlp`)', otlp)
    row('the Pyroscope export (`lfr-export-pyro`)', pyro)
    print()
    print('Runs: %d without lfr, %d without exports, %d with; samples per measured window '
          '(median): %d taken, %d delivered to each backend.' % (
              len(none), len(rec), len(exp), med(r['taken'] for r in exp),
              med(r['sent_otlp'] for r in exp)))
    print()
    print('Per run (ns/sample): without exports: ' +
          ', '.join('threads %.0f%s' % (r['recorder_ns'] / r['taken'],
                                         ', whole %.0f' % lost(r) if lost(r) is not None else '')
                    for r in rec) +
          '; with: ' + '; '.join('recorder %.0f, OTLP %.0f, Pyroscope %.0f' % (
              r['recorder_ns'] / r['taken'], r['otlp_ns'] / r['sent_otlp'],
              r['pyroscope_ns'] / r['sent_pyroscope']) for r in exp))


if __name__ == '__main__':
    main()
