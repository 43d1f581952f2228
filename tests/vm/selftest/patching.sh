# The emulator survives the kernel patching its own code while the other CPU runs it: the
# sched_switch tracepoint is switched on and off (a jump label in __schedule and a static call,
# each patched with int3 and a sync IPI to every CPU, as lfr's sessions and rmmod do) while two
# pipelines keep both CPUs in the scheduler.  QEMU 7.2 hung here within the first 1000 switches
# (one CPU spinning at the jump label with interrupts off, the patching CPU waiting for its IPI).
set -u
t=/sys/kernel/tracing
mount -t tracefs tracefs $t 2>/dev/null
e=$t/events/sched/sched_switch/enable
[ -w $e ] || { echo "patching: no $e"; exit 1; }
yes | cat >/dev/null &
yes | cat >/dev/null &
n=${1:-3000}
i=0
while [ $i -lt "$n" ]; do
	echo 1 >$e
	echo 0 >$e
	i=$((i + 1))
	[ $((i % 1000)) = 0 ] && echo "patching: $i switches"
done
kill %1 %2 2>/dev/null
echo "patching: $n switches of sched_switch, on and off, while both CPUs scheduled"
