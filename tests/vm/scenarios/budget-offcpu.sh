# Off-CPU work under the CPU budget (max_cpu_percent): `pingpong ROUNDS futex`, two threads
# handing a turn back and forth with FUTEX_WAIT and FUTEX_WAKE, each off the CPU once a round,
# recorded with `--off-cpu=1us`: every wait is an interval whose end takes a kernel stack in the
# sched_switch probe, raises an irq_work and queues a walk.  With a budget of 1 % that work must
# stop once lfr's time on a CPU passed it, as the ticks do: intervals are dropped and counted
# (offcpu_throttled), and every interval of at least the minimum is committed with its stacks,
# lost for a counted reason or throttled: offcpu = offcpu_committed + offcpu_lost +
# offcpu_throttled once the session stopped.  The ticks' identity holds too.  With no limit (0)
# nothing is throttled.  lfr's own time (timer handlers, walks, off-CPU work, as the module
# counts them) is printed against the guest's time, not judged: what is checked is what the
# module counted.
set -u
share=${LFR_SHARE:-/tmp}
fail=0
param=/sys/module/lfr/parameters/max_cpu_percent
rounds=20000
[ "${LFR_KERNEL:-stock}" = debug ] && rounds=4000
num() { local v; v=$(echo "$st" | tr ' ' '\n' | sed -n "s/^$1=//p" | head -n 1); echo "${v:-0}"; }
for pct in 1 0; do
	echo $pct >$param
	t0=$(cut -d' ' -f1 /proc/uptime)
	lfr record -F 999 --off-cpu=1us -o "$share/pp-$pct.jfr" -- pingpong $rounds futex \
		>"$share/pp-$pct.txt" 2>"$share/pp-$pct.err"
	rc=$?
	t1=$(cut -d' ' -f1 /proc/uptime)
	cat "$share/pp-$pct.txt"
	grep -E 'samples|off-CPU' "$share/pp-$pct.err"
	[ $rc = 0 ] || { echo "budget-offcpu: FAILED: lfr record exited $rc"; cat "$share/pp-$pct.err"; fail=1; }
	st=$(lfr status -m | grep '^status ')
	echo "$st" >"$share/status-$pct.txt"
	off=$(num offcpu) com=$(num offcpu_committed) lost=$(num offcpu_lost) thr=$(num offcpu_throttled)
	echo "budget-offcpu: max_cpu_percent=$pct: offcpu=$off offcpu_committed=$com offcpu_lost=$lost" \
		"offcpu_throttled=$thr offcpu_short=$(num offcpu_short) offcpu_probe_count=$(num offcpu_probe_count)" \
		"ticks_matched=$(num ticks_matched) lost_throttled=$(num lost_throttled) ticks_skipped=$(num ticks_skipped)"
	lfr_ns=$(($(num irq_ns) + $(num work_ns) + $(num offcpu_probe_ns)))
	awk -v ns=$lfr_ns -v a="$t0" -v b="$t1" -v c="$(nproc)" -v p=$pct 'BEGIN {
		printf "budget-offcpu: max_cpu_percent=%d: lfr'"'"'s time %.2f %% of %d CPUs over %.2f s (printed, not judged)\n",
		       p, 100 * ns / 1e9 / ((b - a) * c), c, b - a }'
	[ "$(num state)" = stopped ] || { echo "budget-offcpu: FAILED: the session is $(num state)"; fail=1; }
	[ "$off" -gt 0 ] || { echo "budget-offcpu: FAILED: no off-CPU interval of 1 us or more"; fail=1; }
	[ "$off" = $((com + lost + thr)) ] || {
		echo "budget-offcpu: FAILED: offcpu $off != committed $com + lost $lost + throttled $thr"; fail=1; }
	# the ticks: matched = committed + pending + every loss but aux_ring_full
	sum=$(($(num ticks_committed) + $(num ticks_pending)))
	for r in $(echo "$st" | tr ' ' '\n' | sed -n 's/^lost_\([a-z_]*\)=.*/\1/p'); do
		[ "$r" = aux_ring_full ] || sum=$((sum + $(num lost_$r)))
	done
	[ "$(num ticks_matched)" = $sum ] || {
		echo "budget-offcpu: FAILED: ticks_matched $(num ticks_matched) != committed + pending + lost $sum"; fail=1; }
	if [ $pct = 1 ]; then
		[ "$thr" -gt 0 ] || { echo "budget-offcpu: FAILED: no off-CPU interval throttled at 1 %"; fail=1; }
		[ "$(num offcpu_probe_count)" -gt 0 ] || { echo "budget-offcpu: FAILED: no off-CPU work charged"; fail=1; }
	else
		[ "$thr" = 0 ] || { echo "budget-offcpu: FAILED: intervals throttled without a limit"; fail=1; }
	fi
done
echo 25 >$param
[ $fail = 0 ] && echo "budget-offcpu: ok"
exit $fail
