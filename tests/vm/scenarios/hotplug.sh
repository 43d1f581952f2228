# A CPU taken offline and brought back online during a session: sampling continues on the other CPU
# while it is offline, resumes on it once it is back, and the accounting balances.
# Each phase lasts until the workload has had the CPU time it needs, not for a time: the worker
# thread is pinned to CPU 1 before offlining and again once CPU 1 is back, and each phase ends when
# it has run 0.5 s there (or the process 1 s on CPU 0 while CPU 1 is offline), however long a
# loaded host takes to give it that.
set -u
share=${LFR_SHARE:-/tmp}
cpu=/sys/devices/system/cpu/cpu1/online
fail=0
if [ ! -w $cpu ]; then
	echo "hotplug: FAILED: $cpu is not writable: this kernel cannot take CPU 1 offline"
	exit 1
fi
now() { cut -d' ' -f1 /proc/uptime; }   # CLOCK_BOOTTIME == CLOCK_MONOTONIC without suspend
# CPU time (utime + stime, in clock ticks) of a process or thread: /proc/.../stat after the comm
cputicks() { sed 's/.*) //' "$1/stat" | awk '{ print $12 + $13 }'; }
# waits until the CPU time in $1 has grown by $2 ticks (a bound of 600 s only ends a hung run)
wait_cpu() {
	local from=$(cputicks "$1") i
	for i in $(seq 6000); do
		[ $(($(cputicks "$1") - from)) -ge "$2" ] && return 0
		sleep 0.1
	done
	echo "hotplug: FAILED: $1 did not get $2 ticks of CPU time in 600 s"; fail=1
}

lfr raw -F 999 -k -o "$share/hotplug-dump.txt" -- callgraph 3600 >cg.txt &
dpid=$!
for i in $(seq 600); do lfr status -m | grep -q 'state=running' && break; sleep 0.1; done
for i in $(seq 600); do grep -q '^callgraph pid=' cg.txt && break; sleep 0.1; done
pid=$(sed -n 's/^callgraph pid=\([0-9]*\).*/\1/p' cg.txt)
worker=$(ls /proc/$pid/task | grep -v "^$pid\$")
echo "hotplug: callgraph pid $pid, worker thread $worker"
taskset -p 2 "$worker" >/dev/null || { echo "hotplug: FAILED: pinning the worker to CPU 1"; fail=1; }
wait_cpu /proc/$pid/task/$worker 50
t_off=$(now)
echo 0 >$cpu || { echo "hotplug: FAILED: offlining CPU 1"; fail=1; }
t_off_done=$(now) # offlining takes a while (stop_machine); CPU 1 may sample until it is done
echo "hotplug: CPU 1 offline from $t_off s to $t_off_done s: $(cat /sys/devices/system/cpu/online) online"
wait_cpu /proc/$pid 100
t_on=$(now)
echo 1 >$cpu || { echo "hotplug: FAILED: onlining CPU 1"; fail=1; }
echo "hotplug: CPU 1 online again at $t_on s: $(cat /sys/devices/system/cpu/online) online"
taskset -p 2 "$worker" >/dev/null || { echo "hotplug: FAILED: pinning the worker to CPU 1 again"; fail=1; }
wait_cpu /proc/$pid/task/$worker 50
kill -ALRM "$pid" # the burn ends, callgraph exits, and lfr raw with it
wait $dpid
rc=$?
grep -E '^(read|read_cpu|check|summary) ' "$share/hotplug-dump.txt"
[ $rc = 0 ] || { echo "hotplug: FAILED: lfr raw exited with $rc"; fail=1; }
awk -v off="$t_off" -v off_done="$t_off_done" -v on="$t_on" '
function field(name,    i) {
	for (i = 2; i <= NF; i++) if (index($i, name "=") == 1) return substr($i, length(name) + 2)
	return ""
}
$1 == "sample" {
	t = field("time") / 1e9; c = field("cpu")
	if (t < off) phase = "before"; else if (t < on) phase = "offline"; else phase = "after"
	n[phase, c]++
	# margins: /proc/uptime has 10 ms resolution
	if (c == 1 && t > off_done + 0.02 && t < on - 0.02) bad++
}
END {
	printf "hotplug: samples cpu0/cpu1: before %d/%d, while offline %d/%d, after %d/%d\n",
	       n["before", 0], n["before", 1], n["offline", 0], n["offline", 1], n["after", 0], n["after", 1]
	f = 0
	if (bad) { printf "hotplug: FAILED: %d samples on CPU 1 while it was offline\n", bad; f = 1 }
	if (!n["before", 1]) { print "hotplug: FAILED: no samples on CPU 1 before offlining"; f = 1 }
	if (!n["offline", 0]) { print "hotplug: FAILED: no samples on CPU 0 while CPU 1 was offline"; f = 1 }
	if (!n["after", 1]) { print "hotplug: FAILED: sampling did not resume on CPU 1"; f = 1 }
	exit f
}' "$share/hotplug-dump.txt" || fail=1
[ $fail = 0 ] && echo "hotplug: ok"
exit $fail
