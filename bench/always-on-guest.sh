# The in-VM half of bench/always-on: the two-thread, 32-frame workload (deepstack 32 T 2, both
# CPUs busy) runs throughout; half a second after it starts, the service's recorder starts
# (lfr record -a --repository with the options given) and is measured over two windows: its first
# 10 s (start-up: symbol and unwind tables of every process, the first chunk) and a steady window
# from 20 s to 20+SECONDS s.  At 0 s, 10 s, 20 s and 20+SECONDS s it reads the recorder's CPU
# time (the sum over /proc/PID/task/*/schedstat of the first field: ns on the CPU, user and
# kernel, of every thread), its thread ids, its utime+stime ticks (which include exited threads,
# a coarse cross-check), its VmRSS, and the module's CPU for the session (irq_ns + work_ns +
# offcpu_probe_ns of `lfr status -m`), and each thread's name and time; in the steady window, VmRSS every 30 s.  At 0 s the recorder has just been spawned: its CPU and the module's are
# taken as 0.  One "always-on" line per window and run for the report.
# As the service, the recorder keeps its unwind and symbol tables in /var/cache/lfr/tables (--cache): with
# CACHE "warm" a recording beside the workload fills it before the first run (10 s, then until its
# unwind-table loader is idle: the service's
# every start after its first), with "cold" it is emptied before each run (its very first start).
#   always-on-guest.sh SECONDS RUNS "LFR RECORD OPTIONS" [cold|warm]
# An @SINK@ in the options is a receiver on the guest's loopback (httpsink, which keeps every
# request): --export otlp=http://@SINK@ names it.
set -u
secs=$1 runs=$2 opts=$3 cache_mode=${4:-warm}
repo=/tmp/lfr-repo
cache=/var/cache/lfr/tables
mkdir -p /var/cache/lfr
case "$opts" in
*@SINK@*)
	ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
	mkdir -p /tmp/sink
	httpsink /tmp/sink >/dev/null 2>&1 &
	for i in $(seq 300); do [ -s /tmp/sink/port ] && break; sleep 0.1; done
	opts=$(echo "$opts" | sed "s/@SINK@/127.0.0.1:$(cat /tmp/sink/port)/g")
	;;
esac
echo "always-on: kernel $(uname -r), $(nproc) CPUs; lfr.ko $(cat /sys/module/lfr/version); lfr record -a --repository $repo --cache $cache $opts; cache $cache_mode"
# (busybox sh: no arrays; busybox awk: %d is 32-bit, hence %.0f)
# ns on the CPU of all the live threads of a process
sched_ns() { cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { printf "%.0f\n", s }'; }
# the live thread ids, comma-separated
tids_of() { ls /proc/"$1"/task 2>/dev/null | sort -n | paste -sd, -; }
# utime + stime of a process (exited threads included), in USER_HZ ticks
ticks_of() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
# each live thread's TID:COMM:NS (ns on the CPU), comma-separated
threads_of() { for t in /proc/"$1"/task/*; do
	printf '%s:%s:%s,' "${t##*/}" "$(tr ' :,' '___' <"$t/comm")" "$(cut -d' ' -f1 "$t/schedstat")"
	done 2>/dev/null; echo; }
rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }
# the module's CPU time for a session so far: timer interrupts and stack walks, in ns
module_ns() { lfr status -S "$1" -m | awk '/^status / { for (i = 1; i <= NF; i++) { split($i, kv, "=");
	if (kv[1] == "irq_ns" || kv[1] == "work_ns" || kv[1] == "offcpu_probe_ns") s += kv[2] } } END { printf "%.0f\n", s }'; }
# the guest's clock in ms (/proc/uptime: 10 ms steps; busybox date has no %N)
now_ms() { awk '{ printf "%.0f\n", $1 * 1000 }' /proc/uptime; }
# sleep until T0 + S seconds
sleep_until() {
	left=$(( $1 + $2 * 1000 - $(now_ms) ))
	[ $left -gt 0 ] && sleep "$(awk -v n=$left 'BEGIN { printf "%.3f", n / 1000 }')"
}
# read everything at a mark: sets at_N ns_N tk_N tids_N rss_N mod_N th_N
mark() { # N
	eval "at_$1=$(now_ms) ns_$1=$(sched_ns $rec) tk_$1=$(ticks_of $rec) tids_$1=$(tids_of $rec) rss_$1=$(rss_kb $rec) th_$1=$(threads_of $rec)"
	[ -n "$cid" ] || cid=$(lfr status -m | sed -n 's/^status session=\([0-9]*\) .*/\1/p' | head -n 1)
	eval "mod_$1=$(module_ns "$cid")"
}
secs_of() { awk -v n=$(($2 - $1)) 'BEGIN { printf "%.3f", n / 1000 }'; }

run() {
	rm -rf "$repo"
	[ "$cache_mode" = cold ] && rm -rf "$cache"
	deepstack 32 $((secs + 25)) 2 >/tmp/work.txt 2>/dev/null &
	work=$!
	sleep 0.5
	cid=""
	t0=$(now_ms)
	# shellcheck disable=SC2086
	lfr record -a -q --repository "$repo" --cache "$cache" $opts 2>/tmp/rec.err &
	rec=$!
	at_0=$t0 ns_0=0 tk_0=0 tids_0=- rss_0=0 mod_0=0 th_0=-
	sleep_until "$t0" 10; mark 1
	sleep_until "$t0" 20; mark 2
	# through the steady window, VmRSS every 30 s (at seconds since the start)
	rsst=""
	s=50
	while [ $s -lt $((20 + secs)) ]; do
		sleep_until "$t0" $s
		rsst="$rsst$s:$(rss_kb $rec),"
		s=$((s + 30))
	done
	sleep_until "$t0" $((20 + secs)); mark 3
	kill -TERM $rec
	wait $rec
	wait $work
	# -q: anything it said is a problem of the run
	[ -s /tmp/rec.err ] && sed 's/^/always-on: lfr record said: /' /tmp/rec.err
	bytes=$(cat "$repo"/*Z.jfr 2>/dev/null | wc -c)
	runs_s=$(secs_of $at_0 $at_3)
	for w in first steady; do
		if [ $w = first ]; then a=0 b=1; else a=2 b=3; fi
		eval "ta=\$at_$a tb=\$at_$b na=\$ns_$a nb=\$ns_$b ka=\$tk_$a kb=\$tk_$b ma=\$mod_$a mb=\$mod_$b ra=\$rss_$a rb=\$rss_$b ia=\$tids_$a ib=\$tids_$b ha=\$th_$a hb=\$th_$b"
		echo "always-on window=$w run=$run cpus=$(nproc) secs_guest=$(secs_of $ta $tb) recorder_ns=$((nb - na)) recorder_ticks=$((kb - ka)) module_ns=$((mb - ma)) rss_start_kb=$ra rss_end_kb=$rb tids_start=$ia tids_end=$ib repo_bytes=$bytes run_secs=$runs_s pid=$rec threads_start=$ha threads_end=$hb rss_trace=${rsst:--} | $(grep -h '^deepstack ' /tmp/work.txt)"
	done
}

if [ "$cache_mode" = warm ]; then
	# the service's own command, for 10 s: its loader at the service's priority builds every
	# table of the objects the workload and the recorder run
	# (10 s, then until the loader is idle, at most 120 s more: with --off-cpu the waits of every
	# process bring their objects, more than the loader at nice 19 builds in 10 s)
	rm -rf "$cache"
	deepstack 32 150 2 >/dev/null 2>&1 &
	prime_work=$!
	sleep 0.5
	# shellcheck disable=SC2086
	lfr record -a --repository /tmp/prime-repo --cache "$cache" $opts 2>/tmp/prime.err &
	prime=$!
	sleep 10
	loader_ns() { for t in /proc/"$1"/task/*; do [ "$(cat "$t/comm")" = lfr-unwind ] && cut -d' ' -f1 "$t/schedstat"; done 2>/dev/null; }
	b=$(loader_ns $prime)
	for i in $(seq 120); do
		sleep 1
		a=$b b=$(loader_ns $prime)
		[ "$a" = "$b" ] && break
	done
	kill -TERM $prime
	wait $prime
	kill $prime_work 2>/dev/null
	wait $prime_work
	echo "always-on: cache filled: $(ls "$cache" | grep -c '\.unwind$') unwind tables, $(ls "$cache" | grep -c '\.syms$') symbol tables; $(grep 'cache ' /tmp/prime.err)"
	rm -rf /tmp/prime-repo
fi
for run in $(seq "$runs"); do run; done
echo "always-on: done"
