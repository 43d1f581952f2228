# Concurrent sessions: a system-wide session at 99 Hz runs while two per-task sessions sample the
# same program at 999 and 499 Hz.  Each must get exactly its own samples: for every thread of the
# program, each per-task session's samples plus losses equal the thread's CPU time over that
# session's period (concurrent.host checks it), and each session's own identity (ticks matched =
# committed + pending + lost) holds.  `lfr status` lists the three while they run.
set -u
secs=5
[ "${LFR_KERNEL:-stock}" = debug ] && secs=8
share=${LFR_SHARE:-/tmp}
fail=0
running() { lfr status -m | grep -c '^session .*state=running'; }

lfr raw -a -F 99 -d $((secs + 60)) -o "$share/sys.txt" &
sys=$!
for i in $(seq 300); do lfr status -m | grep -q 'state=running' && break; sleep 0.1; done
# The workload burns once both per-task sessions run (SIGUSR1), however long they took to start.
callgraph "$secs" usr1 >"$share/callgraph.txt" &
cg=$!
lfr raw -F 999 -k -p $cg -d $((secs + 60)) -o "$share/fast.txt" &
fast=$!
lfr raw -F 499 -p $cg -d $((secs + 60)) -o "$share/slow.txt" &
slow=$!
most=0
for i in $(seq 6000); do [ "$(running)" = 3 ] && most=3 && break; sleep 0.1; done # liveness bound only
kill -USR1 $cg
while kill -0 $cg 2>/dev/null; do
	n=$(running)
	[ "$n" -gt "$most" ] && most=$n
	sleep 0.5
done
lfr status
echo "concurrent: at most $most sessions running at once"
[ "$most" = 3 ] || { echo "concurrent: FAILED: lfr status never listed 3 running sessions"; fail=1; }
wait $cg || { echo "concurrent: FAILED: the workload failed"; fail=1; }
wait $fast || { echo "concurrent: FAILED: lfr raw -F 999 exited with $?"; fail=1; }
wait $slow || { echo "concurrent: FAILED: lfr raw -F 499 exited with $?"; fail=1; }
[ "$(running)" = 1 ] || { echo "concurrent: FAILED: stopping two sessions did not leave the system-wide one running"; fail=1; }
kill -INT $sys
wait $sys || { echo "concurrent: FAILED: lfr raw -a exited with $?"; fail=1; }
for f in sys fast slow; do
	grep -E '^check (ticks_identity|missed_read) ' "$share/$f.txt" | sed "s/^/concurrent: $f: /"
	grep -q '^check ticks_identity ok' "$share/$f.txt" ||
		{ echo "concurrent: FAILED: $f: the session's identity does not hold"; fail=1; }
done
exit $fail
