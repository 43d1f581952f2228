# A CPU taken offline and brought back online during a session: sampling continues on the other CPU
# while it is offline, resumes on it once it is back, and the accounting balances.
set -u
share=${LFR_SHARE:-/tmp}
cpu=/sys/devices/system/cpu/cpu1/online
fail=0
if [ ! -w $cpu ]; then
	echo "hotplug: FAILED: $cpu is not writable: this kernel cannot take CPU 1 offline"
	exit 1
fi
now() { cut -d' ' -f1 /proc/uptime; }   # CLOCK_BOOTTIME == CLOCK_MONOTONIC without suspend

lfr raw -F 999 -k -d 9 -o "$share/hotplug-dump.txt" -- callgraph 9 >cg.txt &
dpid=$!
sleep 3
t_off=$(now)
echo 0 >$cpu || { echo "hotplug: FAILED: offlining CPU 1"; fail=1; }
t_off_done=$(now) # offlining takes a while (stop_machine); CPU 1 may sample until it is done
echo "hotplug: CPU 1 offline from $t_off s to $t_off_done s: $(cat /sys/devices/system/cpu/online) online"
sleep 3
t_on=$(now)
echo 1 >$cpu || { echo "hotplug: FAILED: onlining CPU 1"; fail=1; }
echo "hotplug: CPU 1 online again at $t_on s: $(cat /sys/devices/system/cpu/online) online"
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
