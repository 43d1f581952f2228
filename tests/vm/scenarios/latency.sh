# Sampling latency: `latency` reads 4 MiB from /dev/urandom per read() call (CPU time in the
# kernel, no wait), timing each call itself; lfr records it at 999 Hz with --latency=1ms.  A tick
# in such a call is walked only when the call returns: latency.host checks each
# lfr.SamplingLatency event against the calls (tests/vm/scenarios/latency-check.py).
set -u
share=${LFR_SHARE:-/tmp}
fail=0
lfr record -F 999 --latency=1ms -o "$share/latency.jfr" -- latency 20 4096 \
	>"$share/latency.txt" 2>"$share/latency.err"
rc=$?
head -n 3 "$share/latency.txt"
cat "$share/latency.err"
[ $rc = 0 ] || { echo "latency: FAILED: lfr record exited $rc"; fail=1; }
grep -q 'sampling latency: [1-9]' "$share/latency.err" ||
	{ echo "latency: FAILED: lfr record's summary counts no sampling latency"; fail=1; }
# a minimum out of range is refused by the CLI, naming the option
lfr record --latency=0 -d 1 -a -o "$share/none.jfr" 2>"$share/usage.err"
rc=$?
if [ $rc != 2 ] || ! grep -q -- '--latency' "$share/usage.err"; then
	echo "latency: FAILED: lfr record --latency=0 exited $rc"; cat "$share/usage.err"; fail=1
fi
exit $fail
