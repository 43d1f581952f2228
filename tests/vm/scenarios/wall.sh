# Wall-clock samples: `offcpu` (one thread waits in f, g, h for known times, another spins; each
# measures itself) recorded with `lfr record --wall 999`; wall.host checks each thread's and each
# function's samples, on and off the CPU, against the workload's own wall times
# (tests/vm/scenarios/wall-check.py); then the same in a cgroup, recorded with -G.
set -u
share=${LFR_SHARE:-/tmp}
fail=0
lfr record --wall 999 -o "$share/wall.jfr" -- offcpu 3 >"$share/offcpu.txt" 2>"$share/wall.err"
rc=$?
cat "$share/offcpu.txt"
grep -E 'samples|lost|wall clock|tid ' "$share/wall.err"
[ $rc = 0 ] || { echo "wall: FAILED: lfr record exited $rc"; cat "$share/wall.err"; fail=1; }
# The same workload in a cgroup, recorded with -G (the timer-mode sampler; the sched_switch probe
# gives its threads' intervals), stopped once the workload has exited: a handshake, not a time.
cg=/sys/fs/cgroup/lfrwall
mkdir -p $cg
lfr record --wall 999 -G lfrwall -o "$share/wall-cg.jfr" 2>"$share/wall-cg.err" &
rec=$!
for i in $(seq 6000); do lfr status -m | grep -q 'state=running' && break; sleep 0.1; done # liveness bound only
sh -c "echo \$\$ >$cg/cgroup.procs; exec offcpu 3" >"$share/offcpu-cg.txt"
kill -INT $rec
wait $rec
rc=$?
grep -E 'samples|lost|wall clock' "$share/wall-cg.err"
[ $rc = 0 ] || { echo "wall: FAILED: lfr record --wall -G exited $rc"; cat "$share/wall-cg.err"; fail=1; }
rmdir $cg
# one rate: a second rate says so and exits with the usage status
for args in "--wall 99 -F 49 -p 1"; do
	lfr record $args -d 1 -o "$share/none.jfr" 2>"$share/usage.err"
	rc=$?
	if [ $rc != 2 ] || ! grep -q -- '--wall' "$share/usage.err"; then
		echo "wall: FAILED: lfr record $args exited $rc"; cat "$share/usage.err"; fail=1
	fi
done
exit $fail
