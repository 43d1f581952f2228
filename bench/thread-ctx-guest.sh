# The in-VM half of bench/thread-ctx: each workload under `lfr record` with and without thread
# contexts, alternating; one "ctxcost" line per run with the session's counters.
#   thread-ctx-guest.sh SECONDS RUNS HZ "WORKLOADS"
set -u
secs=$1 runs=$2 hz=$3 workloads=$4
echo "thread-ctx: kernel $(uname -r), $(nproc) CPUs; lfr.ko $(cat /sys/module/lfr/version)"
: >/tmp/go # spanctx's threads start their spans at once
run() { # WORKLOAD MODE
	local w=$1 mode=$2 opt="" cmd
	[ "$mode" = off ] && opt=--no-thread-context
	case $w in
	deepstack) cmd="deepstack 40 $secs 2" ;;
	*) cmd="$w $secs /tmp/go" ;;
	esac
	lfr record -F "$hz" -q $opt -o /tmp/c.jfr -- $cmd >/dev/null 2>/tmp/c.err
	rc=$?
	echo "ctxcost workload=$w mode=$mode run=$run rc=$rc $(lfr status -m | grep '^status ' |
		tr ' ' '\n' | grep -E '^(work_ns|work_count|records_ustack|ctx|ctx_null|ctx_invalid|ctx_fault|ctx_changed|ctx_no_block|ctx_faulted_in)=' |
		tr '\n' ' ')"
	rm -f /tmp/c.jfr
}
for run in $(seq "$runs"); do
	for w in $workloads; do
		if [ $((run % 2)) = 0 ]; then run "$w" on; run "$w" off; else run "$w" off; run "$w" on; fi
	done
done
echo "thread-ctx: done"
