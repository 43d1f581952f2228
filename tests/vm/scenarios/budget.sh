# The CPU budget (module parameter max_cpu_percent, perf's perf_cpu_time_max_percent): with a budget of
# 1 % of each CPU, lfr skips the ticks of each 100 ms window once its own time on that CPU passed it,
# counts them lost as 'throttled', and every tick is still a sample or a counted loss.  With no limit
# (0) nothing is throttled.  Then four sessions at once get the machine's one budget, and their
# timers skip the rest of a window once it is spent.
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

# The budget is the machine's, not a session's: four sessions at 5 % each on the same threads
# spend 5 % of each CPU together (20 % before), plus at most a tick and a walk each per window over
# it.  And once it is spent their timers skip to the window's end without interrupts (each skipped
# period is counted, in ticks_skipped and, with the thread's next tick, as matched and lost
# 'throttled': each dump's identity still holds).
echo 5 >$param
callgraph 600 >/dev/null & # runs until killed below (600 s: a bound only)
cpid=$!
t0=$(cut -d' ' -f1 /proc/uptime)
for n in 1 2 3 4; do
	lfr raw -F 4999 -q -p $cpid -d 3 -o "$share/budget-s$n.txt" &
	eval "rpid$n=\$!"
done
for n in 1 2 3 4; do
	eval "wait \$rpid$n" || { echo "budget: FAILED: session $n's lfr raw failed (a check?)"; fail=1; }
done
t1=$(cut -d' ' -f1 /proc/uptime)
kill $cpid 2>/dev/null
wait $cpid 2>/dev/null
echo 25 >$param
num() { local v; v=$(echo "$st" | field "$1"); echo "${v:-0}"; }
lfr_ns=0 irqs=0 matched=0 missed=0 skipped=0
for n in 1 2 3 4; do
	st=$(grep '^status ' "$share/budget-s$n.txt")
	echo "budget: session $n: irq_ns=$(num irq_ns) work_ns=$(num work_ns) irq_count=$(num irq_count) ticks_matched=$(num ticks_matched) lost_missed=$(num lost_missed) lost_throttled=$(num lost_throttled) ticks_skipped=$(num ticks_skipped)"
	lfr_ns=$((lfr_ns + $(num irq_ns) + $(num work_ns)))
	irqs=$((irqs + $(num irq_count)))
	matched=$((matched + $(num ticks_matched)))
	missed=$((missed + $(num lost_missed)))
	skipped=$((skipped + $(num ticks_skipped)))
done
ncpu=$(nproc)
share_pct=$(awk -v ns="$lfr_ns" -v a="$t0" -v b="$t1" -v c="$ncpu" 'BEGIN { printf "%.2f", 100 * ns / 1e9 / ((b - a) * c) }')
echo "budget: four sessions at 5 %: lfr's time ${share_pct} % of $ncpu CPUs over $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') s; $irqs interrupts, $matched ticks matched ($missed missed, $skipped skipped)"
awk -v p="$share_pct" 'BEGIN { exit !(p <= 10) }' ||
	{ echo "budget: FAILED: four sessions spent ${share_pct} % of the CPUs, more than twice the machine's 5 %"; fail=1; }
[ "$skipped" -gt 0 ] || { echo "budget: FAILED: no timer skipped a throttled window"; fail=1; }
[ $fail = 0 ] && echo "budget: ok"
exit $fail
