# SPDX-License-Identifier: GPL-2.0
"""Turns bench/run's results.txt into Markdown tables and the closing pass/fail line.

Usage: report.py RESULTS_TXT quick|full
"""
import re
import sys
from collections import defaultdict


def kv(text):
    return {k: v for k, v in re.findall(r'(\w+)=([^\s|]+)', text)}


def fnum(d, k, default=None):
    try:
        return float(d[k])
    except (KeyError, ValueError):
        return default


def fmt(x, spec='.1f', none='—'):
    return none if x is None else format(x, spec)


def ratio(a, b, floor=0.0):
    if a is None or b is None or b <= floor:
        return None
    return a / b


def main():
    path, mode = sys.argv[1], sys.argv[2]
    runs, perfstats, drainers, header, notes = {}, {}, [], [], defaultdict(list)
    failed_lines = []
    for line in open(path, encoding='utf-8', errors='replace'):
        line = line.rstrip('\n')
        if line.startswith('result '):
            parts = line.split(' | ')
            r = kv(parts[0])
            r['work'] = kv(parts[1]) if len(parts) > 1 else {}
            r['cpu'] = kv(parts[2]) if len(parts) > 2 else {}
            r['status'] = kv(parts[3]) if len(parts) > 3 else {}
            runs[r['id']] = r
        elif line.startswith('perfstats '):
            p = kv(line)
            perfstats[p['id']] = p
        elif line.startswith('drainer:'):
            drainers.append(line)
        elif line.startswith('note '):
            m = re.match(r'note id=(\S+): (.*)', line)
            if m:
                notes[m.group(1)].append(m.group(2))
        elif line.startswith('bench: kernel') or line.startswith('bench: lfr.ko'):
            header.append(line[len('bench: '):])
        elif 'FAILED' in line or 'failed' in line:
            failed_lines.append(line)

    def rate(r):
        w = r['work']
        if 'rate' in w:
            return fnum(w, 'rate')
        if 'calls' in w:  # syscalls busy: calls over the nominal duration
            return fnum(w, 'calls') / fnum(r, 'secs')
        return None

    def wall(r):
        w = r['work']
        return fnum(w, 'seconds', fnum(r, 'secs'))

    # Group by workload and frequency.
    wls, freqs = [], []
    for r in runs.values():
        if r['wl'] not in wls:
            wls.append(r['wl'])
        if r['prof'] != 'none' and int(r['freq']) not in freqs:
            freqs.append(int(r['freq']))
    freqs.sort()
    base = {}
    for wl in wls:
        rs = [rate(r) for r in runs.values() if r['wl'] == wl and r['prof'] == 'none'
              and r['rc'] == '0' and rate(r)]
        base[wl] = (sum(rs) / len(rs), (max(rs) - min(rs)) / (sum(rs) / len(rs)) * 100) if rs else (None, None)

    rows = []
    passed = failed = 0
    for wl in wls:
        for fr in freqs:
            p = runs.get(f'{wl}-perf-{fr}')
            l = runs.get(f'{wl}-lfr-{fr}')
            if not p or not l:
                continue
            row = {'wl': wl, 'freq': fr}
            ok = base[wl][0] is not None
            for name, r in (('perf', p), ('lfr', l)):
                rt = rate(r)
                ok = ok and r['rc'] == '0' and rt is not None and fnum(r, 'bytes', 0) > 0 and 'self_user' in r['cpu']
                row[name + '_slow'] = (1 - rt / base[wl][0]) * 100 if rt and base[wl][0] else None
                row[name + '_cpu'] = (fnum(r['cpu'], 'self_user', 0) + fnum(r['cpu'], 'self_sys', 0)) if 'self_user' in r['cpu'] else None
                row[name + '_during'] = fnum(r['cpu'], 'during_child')
                row[name + '_wall'] = wall(r)
                row[name + '_bytes'] = fnum(r, 'bytes', 0)
            ps = perfstats.get(f'{wl}-perf-{fr}', {})
            st = l['status']
            row['perf_samples'] = fnum(ps, 'samples')
            row['perf_lost'] = (fnum(ps, 'lost_samples', 0) or 0) + (fnum(ps, 'lost_events', 0) or 0)
            row['perf_throttle'] = fnum(ps, 'throttle', 0)
            row['lfr_samples'] = fnum(st, 'ticks_committed')
            row['lfr_records'] = fnum(st, 'samples_committed')
            row['lfr_lost'] = sum(float(v) for k, v in st.items() if k.startswith('lost_') and k != 'lost_aux_ring_full'
                                  and re.match(r'^\d+$', v))
            ok = ok and bool(row['perf_samples']) and bool(row['lfr_samples'])
            irq_ns, irq_n = fnum(st, 'irq_ns'), fnum(st, 'irq_count')
            work_ns, work_n = fnum(st, 'work_ns'), fnum(st, 'work_count')
            row['lfr_irq'] = irq_ns / irq_n if irq_n else None
            row['lfr_walk'] = work_ns / work_n if work_n else None
            row['lfr_kcost'] = ((irq_ns or 0) + (work_ns or 0)) / row['lfr_records'] if row['lfr_records'] else None
            # Cost per sample as the (single-threaded) workload saw it: CPU time it lost per sample.
            for name in ('perf', 'lfr'):
                s = row[name + '_samples']
                # No slowdown measured (baseline noise): no cost can be derived from it.
                if wl.startswith('deep') and s and row[name + '_slow'] is not None and row[name + '_slow'] > 0:
                    row[name + '_est'] = row[name + '_slow'] / 100 * row[name + '_wall'] / s * 1e9
                else:
                    row[name + '_est'] = None
            row['notes'] = notes.get(f'{wl}-perf-{fr}', []) + notes.get(f'{wl}-lfr-{fr}', [])
            row['ok'] = ok
            passed += ok
            failed += not ok
            rows.append(row)

    out = []
    w = out.append
    if header:
        w('Guest: ' + '; '.join(header) + '\n')
    if rows:
        w('Baselines (no profiler; mean of the runs before, between and after the profiled ones; '
          'spread = (max-min)/mean, the noise floor of every slowdown below):\n')
        w('| workload | rate (work/s) | spread |')
        w('|---|---:|---:|')
        for wl in wls:
            b, sp = base[wl]
            w(f'| {wl} | {fmt(b, ".0f")} | {fmt(sp, ".1f")}% |')
        w('')
        w('Workload slowdown (work per second lost against the baseline) and the profiler process\'s own '
          'CPU time, while the workload ran and in all (start-up and tear-down included):\n')
        w('| workload | Hz | perf slowdown | lfr slowdown | lfr/perf | perf CPU s (during) | lfr CPU s (during) | lfr/perf | perf CPU s (all) | lfr CPU s (all) |')
        w('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
        for r in rows:
            w(f"| {r['wl']} | {r['freq']} | {fmt(r['perf_slow'])}% | {fmt(r['lfr_slow'])}% | "
              f"{fmt(ratio(r['lfr_slow'], r['perf_slow'], 0.5), '.2f')} | {fmt(r['perf_during'], '.2f')} | "
              f"{fmt(r['lfr_during'], '.2f')} | {fmt(ratio(r['lfr_during'], r['perf_during'], 0.0), '.2f')} | "
              f"{fmt(r['perf_cpu'], '.2f')} | {fmt(r['lfr_cpu'], '.2f')} |")
        w('')
        w('Samples, lost samples and bytes per sample on disk (perf.data vs .jfr):\n')
        w('| workload | Hz | perf samples | lfr samples | perf lost | lfr lost | perf B/sample | lfr B/sample | lfr/perf |')
        w('|---|---:|---:|---:|---:|---:|---:|---:|---:|')
        for r in rows:
            pb = r['perf_bytes'] / r['perf_samples'] if r['perf_samples'] else None
            lb = r['lfr_bytes'] / r['lfr_samples'] if r['lfr_samples'] else None
            lost = f"{fmt(r['perf_lost'], '.0f')}" + (f" (+{r['perf_throttle']:.0f} throttled)" if r['perf_throttle'] else '')
            w(f"| {r['wl']} | {r['freq']} | {fmt(r['perf_samples'], '.0f')} | {fmt(r['lfr_samples'], '.0f')} | "
              f"{lost} | {fmt(r['lfr_lost'], '.0f')} | {fmt(pb)} | {fmt(lb)} | {fmt(ratio(lb, pb), '.2f')} |")
        w('')
        w('In-kernel cost per sample.  lfr\'s own counters: timer interrupt per tick (irq_ns/irq_count), '
          'stack walk per walk (work_ns/work_count), and both per committed sample record.  For both '
          'profilers, the CPU time the single-threaded workload lost per sample (slowdown x wall time / '
          'samples), which includes everything the sample cost that thread; — where the workload ran no '
          'slower than without a profiler (the difference is within the noise):\n')
        w('| workload | Hz | lfr irq ns | lfr walk ns | lfr ns/sample (counters) | perf ns/sample (lost time) | lfr ns/sample (lost time) | lfr/perf (lost time) |')
        w('|---|---:|---:|---:|---:|---:|---:|---:|')
        for r in rows:
            w(f"| {r['wl']} | {r['freq']} | {fmt(r['lfr_irq'], '.0f')} | {fmt(r['lfr_walk'], '.0f')} | "
              f"{fmt(r['lfr_kcost'], '.0f')} | {fmt(r['perf_est'], '.0f')} | {fmt(r['lfr_est'], '.0f')} | "
              f"{fmt(ratio(r['lfr_est'], r['perf_est'], 0.0), '.2f')} |")
        w('')
        nl = [(r['wl'], r['freq'], n) for r in rows for n in r['notes']]
        if nl:
            w('Notes printed by the profilers or the kernel:\n')
            for wl, fr, n in nl[:40]:
                w(f'- {wl} {fr} Hz: `{n}`')
            w('')
    if drainers:
        w('Drainer (native): records through lfr_recorder_add/process into a JFR file, naming behind the\n'
          'reading as `lfr record` does; "reading" is the ring reader\'s own CPU per record, the rest is\n'
          'both threads together:\n')
        w('| depth | records | reading: records per CPU second | reading: ns/record | records per CPU second | CPU ns/record | records per wall second | bytes/sample | frames named | stack traces | sym cache hits |')
        w('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
        for d in drainers:
            if 'FAILED' in d:
                failed += 1
                continue
            k = kv(d)
            passed += 1
            w(f"| {k['depth']} | {k['records']} | {float(k.get('read_rate', 0)):.0f} | {k.get('read_ns_per_record', '-')} | {float(k.get('cpu_rate', 0)):.0f} | {k['ns_per_record']} | {float(k['rate']):.0f} | "
              f"{k['bytes_per_sample']} | {k['frames_named']} | {k['stack_traces']} | {k['sym_cache_hits']} |")
        w('')
    for fl in failed_lines:
        w(fl)
        failed += 1
    if mode and not rows and not drainers:
        failed += 1
    w(f'bench: {passed} passed, {failed} failed')
    print('\n'.join(out))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
