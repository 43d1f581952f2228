# The CPU budget (module parameter max_cpu_percent, perf's perf_cpu_time_max_percent): with a budget of
# 1 % of each CPU, lfr skips the ticks of each 100 ms window once its own time on that CPU passed it,
# counts them lost as 'throttled', and every tick is still a sample or a counted loss.  With no limit
# (0) nothing is throttled.
set -u
share=${LFR_SHARE:-/tmp}
fail=0
field() { tr ' ' '\n' | sed -n "s/^$1=//p" | head -n 1; }
param=/sys/module/lfr/parameters/max_cpu_percent
[ "$(cat $param)" = 25 ] || { echo "budget: FAILED: the default budget is $(cat $param), not 25"; fail=1; }
for pct in 1 0; do
	echo $pct >$param
	lfr raw -F 4999 -q -o "$share/budget-$pct.txt" -- callgraph 2 >/dev/null
	rc=$?
	st=$(lfr status -m)
	thr=$(echo "$st" | field lost_throttled)
	echo "budget: max_cpu_percent=$pct: exit $rc, ticks_matched=$(echo "$st" | field ticks_matched) ticks_committed=$(echo "$st" | field ticks_committed) lost_throttled=$thr irq_ns=$(echo "$st" | field irq_ns) work_ns=$(echo "$st" | field work_ns)"
	grep -E '^check ticks_identity' "$share/budget-$pct.txt"
	[ $rc = 0 ] || { echo "budget: FAILED: lfr raw exited $rc (a check failed?)"; fail=1; }
	if [ $pct = 1 ]; then
		[ "${thr:-0}" -gt 0 ] || { echo "budget: FAILED: nothing throttled at 1 %"; fail=1; }
	else
		[ "${thr:-1}" = 0 ] || { echo "budget: FAILED: ticks throttled without a limit"; fail=1; }
	fi
done
echo 25 >$param
[ $fail = 0 ] && echo "budget: ok"
exit $fail
