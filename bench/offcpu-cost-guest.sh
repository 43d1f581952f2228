# The in-VM half of bench/offcpu-cost: pingpong without a profiler, under perf (sched_switch with
# call chains) and under lfr (--off-cpu=1us, and the default minimum), and for the cost of
# following a thread's switches at all, both sampling its CPU time at 1 Hz only, in rotating
# order, in one boot.  One "offcpu-cost" line per run for bench/offcpu-cost-report.py.
# With SLEEPERS > 0, also system-wide (lfr record -a --off-cpu=1us, pingpong beside it), each run
# once alone and once beside SLEEPERS threads of another process that ran once and now sleep
# (sleepers SLEEPERS 1 0, started before and killed after the run): their cost until they run,
# which should be none.
#   offcpu-cost-guest.sh ROUNDS RUNS [SLEEPERS]
set -u
rounds=$1 runs=$2 sleepers=${3:-0}
share=${LFR_SHARE:?}
pdir=/tmp/perf
cp -r "$share/perf" "$pdir"
perf() { "$pdir/ld-linux-x86-64.so.2" --library-path "$pdir" "$pdir/perf" "$@"; }
grep -q " /sys/kernel/tracing " /proc/mounts || mount -t tracefs nodev /sys/kernel/tracing
echo "offcpu-cost: kernel $(uname -r), $(nproc) CPUs; lfr.ko $(cat /sys/module/lfr/version), $(perf version 2>&1)"
# perf records every switch: lfr too, its CPU budget lifted, so that each counts the same events
# (at 25 %, a few per cent of pingpong's intervals found the budget spent and took no stack)
echo 100 >/sys/module/lfr/parameters/max_cpu_percent

ctr() { # NAME "STATUS LINE": a counter of lfr status -m
	echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"
}

# ns on the CPU of all the live threads of a process
sched_ns() { cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { printf "%.0f\n", s }'; }

# sleepers N 1 0 in the background, asleep: its pid in $sl
sleepers_start() {
	sleepers "$sleepers" 1 0 >/tmp/sl.txt 2>&1 &
	sl=$!
	for i in $(seq 3000); do grep -q '^sleepers asleep' /tmp/sl.txt && return 0; sleep 0.1; done
	echo "offcpu-cost: sleepers did not fall asleep: $(cat /tmp/sl.txt)"
}
sleepers_stop() { kill "$sl"; wait "$sl" 2>/dev/null; }

run() { # MODE
	mode=$1 ev="" rc="" st=""
	case $mode in
	none|none-idle)
		pingpong "$rounds" >/tmp/pp.txt 2>/tmp/pp.err
		rc=$? ;;
	lfr-a|lfr-a-idle)
		lfr record -a -F 1 --off-cpu=1us -q -o /tmp/l.jfr 2>/tmp/rec.err &
		rec=$!
		for i in $(seq 600); do lfr status -m 2>/dev/null | grep -q 'state=running' && break; sleep 0.1; done
		r0=$(sched_ns $rec)
		pingpong "$rounds" >/tmp/pp.txt 2>/tmp/pp.err
		rc=$?
		st=$(lfr status -m | grep '^status ')
		r1=$(sched_ns $rec)
		kill -INT $rec
		wait $rec
		ev="events=$(ctr offcpu_committed "$st") short=$(ctr offcpu_short "$st") lost=$(ctr offcpu_lost "$st")"
		ev="$ev throttled=$(ctr offcpu_throttled "$st") kcached=$(ctr kstack_cached "$st") bytes=$(stat -c %s /tmp/l.jfr)"
		ev="$ev recorder_ns=$((r1 - r0)) module_ns=$(($(ctr irq_ns "$st") + $(ctr work_ns "$st") + $(ctr offcpu_probe_ns "$st")))"
		rm -f /tmp/l.jfr ;;
	perf)
		perf record -e sched:sched_switch -g -o /tmp/p.data -- pingpong "$rounds" \
			>/tmp/pp.txt 2>/tmp/pp.err
		rc=$?
		ev=$(perf report -i /tmp/p.data --stats 2>/dev/null | awk '
			$1 == "SAMPLE" && $2 == "events:" && s == "" { s = $3 }
			$1 == "LOST_SAMPLES" { ls = $3 } $1 == "LOST" { l = $3 }
			END { printf "events=%d lost=%d", s, l + ls }')
		ev="$ev bytes=$(stat -c %s /tmp/p.data)"
		rm -f /tmp/p.data ;;
	perf-cpu)
		perf record -e cpu-clock -F 1 -g -o /tmp/p.data -- pingpong "$rounds" \
			>/tmp/pp.txt 2>/tmp/pp.err
		rc=$?
		rm -f /tmp/p.data ;;
	lfr-cpu)
		lfr record -F 1 -q -o /tmp/l.jfr -- pingpong "$rounds" >/tmp/pp.txt 2>/tmp/pp.err
		rc=$?
		rm -f /tmp/l.jfr ;;
	lfr-1us|lfr-1ms)
		min=1us
		[ "$mode" = lfr-1ms ] && min=1ms
		lfr record -F 1 --off-cpu=$min -q -o /tmp/l.jfr -- pingpong "$rounds" \
			>/tmp/pp.txt 2>/tmp/pp.err
		rc=$?
		st=$(lfr status -m | grep '^status ')
		ev="events=$(ctr offcpu_committed "$st") short=$(ctr offcpu_short "$st") lost=$(ctr offcpu_lost "$st")"
		ev="$ev throttled=$(ctr offcpu_throttled "$st") kcached=$(ctr kstack_cached "$st") bytes=$(stat -c %s /tmp/l.jfr)"
		rm -f /tmp/l.jfr ;;
	esac
	case $mode in *-idle) ev="$ev sleepers=$sleepers" ;; esac
	echo "offcpu-cost mode=$mode run=$run rc=$rc $ev | $(grep -h '^pingpong ' /tmp/pp.txt)"
}

for run in $(seq "$runs"); do
	run none
	# rotate the order, so that no profiler always follows another
	case $((run % 3)) in
	0) order="perf lfr-1us lfr-1ms perf-cpu lfr-cpu" ;;
	1) order="lfr-1us lfr-1ms perf lfr-cpu perf-cpu" ;;
	*) order="lfr-1ms perf lfr-1us perf-cpu lfr-cpu" ;;
	esac
	for m in $order; do run "$m"; done
	if [ "$sleepers" -gt 0 ]; then
		run lfr-a
		sleepers_start
		run none-idle
		run lfr-a-idle
		sleepers_stop
	fi
done
echo "offcpu-cost: done"
