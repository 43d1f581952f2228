# What sessions hold, bounded and charged:
# - a session's memory is charged to the memory cgroup of its starter: a detached session of
#   1048576 threads started from a cgroup of its own raises that cgroup's memory.current by at
#   least its thread table (2^21 entries, 32 MiB at the least; nothing was charged before);
# - DRAINING sessions are capped: each of 8 sessions is stopped (without waiting) while the
#   `syscalls pipe` threads it targets are blocked in the kernel with its walks queued, so it stays
#   draining (a session whose ticks queued no walk there is stopped and another tried); a ninth START is then refused (exit 7, EBUSY) with a message saying that stopped
#   sessions are draining; `lfr stop -S ID` gives each one's walks up, and a START succeeds again;
# - the memory of all sessions not yet freed is capped by lfr.max_total_mb: at 1 MiB a START is
#   refused with a message naming the parameter, at the default it succeeds.
set -u
fail=0
field() { tr ' ' '\n' | sed -n "s/^$1=//p" | head -n 1; }
status_of() { lfr status -S "$1" -m | grep '^status '; }
sleep 600 &
sleeper=$!

# 1. the memory cgroup's charge
cg=/sys/fs/cgroup/lfr-drain-cap
if ! grep -qw memory /sys/fs/cgroup/cgroup.controllers; then
	echo "drain-cap: FAILED: no memory controller in this kernel"
	fail=1
else
	echo +memory >/sys/fs/cgroup/cgroup.subtree_control
	mkdir "$cg"
	m0=$(cat "$cg/memory.current")
	sh -c "echo \$\$ >$cg/cgroup.procs && exec lfr raw --detach -p $sleeper --max-threads 1048576 --ring-pages 2" \
		>/dev/null || { echo "drain-cap: FAILED: a session of 1048576 threads did not start"; fail=1; }
	m1=$(cat "$cg/memory.current")
	sid=$(lfr status -m | grep '^status ' | field session)
	echo "drain-cap: memory.current of the starter's cgroup: $m0 before session $sid, $m1 while it runs (+$(((m1 - m0) >> 20)) MiB)"
	[ $((m1 - m0)) -ge $((32 << 20)) ] ||
		{ echo "drain-cap: FAILED: the thread table of 1048576 threads is not charged to the starter's memory cgroup"; fail=1; }
	lfr stop -S "$sid" >/dev/null || { echo "drain-cap: FAILED: lfr stop -S $sid"; fail=1; }
fi

# 2. at most 8 draining sessions.  Each session targets its own `syscalls pipe` process (started
# behind a fifo so that the session runs before its threads do); once every thread of it is blocked
# for good (the fillers in pipe_write, the main thread joining them) a walk still queued can only
# run when they are killed, so the session stays draining after STOP.
# (shell builtins only: a fork costs the debug guest more than the rest of the wait)
blocked() { # PID: its 5 threads exist, every filler waits in pipe_write, and none runs
	set -- /proc/"$1"/task/*
	[ $# = 5 ] || return 1
	for t; do
		read -r _ _ st _ <"$t/stat" && [ "$st" = S ] || return 1
		read -r c <"$t/comm"
		[ "$c" != sc-pipe ] || { read -r w <"$t/wchan"; [ "$w" = pipe_write ]; } || return 1
	done
}
pids=
sids=
n=0
for attempt in $(seq 40); do
	[ $n -ge 8 ] && break
	rm -f go
	mkfifo go
	sh -c 'read x <go; exec syscalls pipe 4' >/dev/null &
	pid=$!
	pids="$pids $pid"
	lfr raw --detach -p $pid -F 10000 --ring-pages 2 --max-threads 64 >/dev/null ||
		{ echo "drain-cap: FAILED: START of draining session $((n + 1))"; fail=1; break; }
	sid=$(lfr status -m | grep '^status ' | field session)
	echo >go
	# until its threads are blocked (600 s: a liveness bound only)
	for i in $(seq 6000); do
		blocked $pid && break
		sleep 0.1
	done
	pending=$(status_of "$sid" | field works_pending)
	lfr stop -S "$sid" --no-wait >/dev/null
	state=$(status_of "$sid" | field state)
	echo "drain-cap: session $sid: $pending walks queued on blocked threads, after STOP: $state"
	if [ "$state" = draining ]; then
		n=$((n + 1))
		sids="$sids $sid"
	fi
done
[ $n = 8 ] || { echo "drain-cap: FAILED: $n sessions draining, not 8"; fail=1; }
lfr raw --detach -p $sleeper >out.txt 2>err.txt
rc=$?
echo "drain-cap: a START with 8 sessions draining: exit $rc: $(head -n 1 err.txt)"
[ $rc = 7 ] && grep -q 'stopped sessions are still draining' err.txt ||
	{ echo "drain-cap: FAILED: not refused with EBUSY for the draining sessions"; fail=1; }
[ $rc = 0 ] && lfr stop >/dev/null
# (their rings, which nobody reads, are full: the walks' ticks were lost as ring_full, so giving
# the walks up adds none to lost_abandoned; the threads are still blocked, so only that stops them)
for sid in $sids; do
	out=$(lfr stop -S "$sid" --timeout 1 -m)
	[ "$(echo "$out" | field state)" = stopped ] ||
		{ echo "drain-cap: FAILED: session $sid not stopped with its walks given up: $out"; fail=1; }
done
lfr raw -p $sleeper -d 0.2 -q >/dev/null 2>err.txt ||
	{ echo "drain-cap: FAILED: START once the draining sessions were stopped: $(head -n 1 err.txt)"; fail=1; }

# 3. the total of all sessions
if echo 1 >/sys/module/lfr/parameters/max_total_mb; then
	lfr raw -p $sleeper -d 0.2 -q >/dev/null 2>err.txt
	rc=$?
	echo "drain-cap: a START with lfr.max_total_mb at 1: exit $rc: $(head -n 1 err.txt)"
	[ $rc != 0 ] && grep -q 'lfr.max_total_mb' err.txt ||
		{ echo "drain-cap: FAILED: the total cap was not applied"; fail=1; }
	echo 1024 >/sys/module/lfr/parameters/max_total_mb
	lfr raw -p $sleeper -d 0.2 -q >/dev/null 2>err.txt ||
		{ echo "drain-cap: FAILED: START under the default total cap: $(head -n 1 err.txt)"; fail=1; }
else
	echo "drain-cap: FAILED: no parameter max_total_mb"
	fail=1
fi

# the blocked threads exit; their given-up walks then drop the module references they hold
kill $pids $sleeper 2>/dev/null
wait $pids $sleeper 2>/dev/null
rmdir "$cg" 2>/dev/null
rm -f go
echo -memory >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
[ $fail = 0 ] && echo "drain-cap: ok"
exit $fail
