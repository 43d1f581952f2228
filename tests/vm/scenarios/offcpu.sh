# Off-CPU intervals: `offcpu` waits in three known ways on one thread (f: nanosleep ~300 ms,
# g: read() of a pipe fed 200 ms later, h: futex wait of 500 ms, each measured by the workload
# itself) while a second thread spins.  lfr records it with --off-cpu (and CPU samples at 999 Hz);
# offcpu.host checks each function's off-CPU time against the workload's own figures, the user
# and kernel stacks of every interval, and the spinning thread's CPU samples against its CPU time.
set -u
share=${LFR_SHARE:-/tmp}
rounds=4
fail=0
lfr record -F 999 --off-cpu -o "$share/offcpu.jfr" -- offcpu "$rounds" \
	>"$share/offcpu.txt" 2>"$share/offcpu.err"
rc=$?
cat "$share/offcpu.txt"
grep -E 'samples|lost|off-CPU|tid ' "$share/offcpu.err"
[ $rc = 0 ] || { echo "offcpu: FAILED: lfr record exited $rc"; cat "$share/offcpu.err"; fail=1; }
lfr status -m >"$share/status.txt" 2>&1
# per-task targets only in this version: -a and -G say so and exit with the usage status
lfr record -a --off-cpu -d 1 -o "$share/none.jfr" 2>"$share/usage.err"
rc=$?
if [ $rc != 2 ] || ! grep -q 'not yet -a' "$share/usage.err"; then
	echo "offcpu: FAILED: lfr record -a --off-cpu exited $rc"; cat "$share/usage.err"; fail=1
fi
exit $fail
