# A recording killed early leaves its samples at the path it was given: `lfr record -F 997 -o
# kill-T.jfr -- callgraph 60` (two threads burning CPU on the guest's two CPUs, so the recorder's
# low-priority naming thread finds no idle CPU) is killed with SIGKILL T = 1, 2, 5 and 10 s after the
# command printed that it started; record-kill.host reads each file with the JDK.  Then an old file
# at -o is kept, byte for byte and with no file left beside it, when `lfr record` fails before its
# first sample: a command that does not exist, a process that does not exist.
set -u
share=${LFR_SHARE:-/tmp}
fail=0
for t in 1 2 5 10; do
	out=$share/kill-$t.jfr
	rm -f "$out"
	lfr record -F 997 -q -o "$out" -- callgraph 60 >cg-$t.out 2>cg-$t.err &
	rec=$!
	cg=""
	for i in $(seq 600); do # the handshake: the workload prints its pid once it runs
		cg=$(sed -n 's/^callgraph pid=\([0-9]*\).*/\1/p' cg-$t.out)
		[ -n "$cg" ] && break
		sleep 0.1
	done
	[ -n "$cg" ] || { echo "record-kill: FAILED: callgraph never started"; cat cg-$t.err; fail=1; }
	sleep $t
	kill -9 $rec
	wait $rec 2>/dev/null
	[ -n "$cg" ] && kill $cg
	echo "record-kill: killed $t s after the command started: $(cd "$share" && ls -a | grep "kill-$t\.jfr" | tr '\n' ' ')"
	[ -f "$out" ] || { echo "record-kill: FAILED: no kill-$t.jfr after a kill $t s in"; fail=1; }
	cp cg-$t.err "$share/kill-$t.err"
done
wait

# An old file at -o survives a recording that fails before its first sample.
lfr record -F 997 -q -o "$share/old.jfr" -- callgraph 1 >/dev/null || { echo "record-kill: FAILED: lfr record of callgraph 1"; fail=1; }
before=$(sha256sum <"$share/old.jfr")
lfr record -F 997 -o "$share/old.jfr" -- /no/such/command >nocmd.out 2>&1
rc=$?
echo "record-kill: lfr record -o old.jfr -- /no/such/command: exit $rc: $(head -n 1 nocmd.out)"
[ $rc = 5 ] || { echo "record-kill: FAILED: a command that does not exist should exit 5 (no such target)"; fail=1; }
[ "$(sha256sum <"$share/old.jfr")" = "$before" ] || { echo "record-kill: FAILED: old.jfr changed"; fail=1; }
before=$(sha256sum <"$share/old.jfr")
lfr record -F 997 -o "$share/old.jfr" -p 99999999 >nopid.out 2>&1
rc=$?
echo "record-kill: lfr record -o old.jfr -p 99999999: exit $rc: $(head -n 1 nopid.out)"
[ $rc = 5 ] || { echo "record-kill: FAILED: a process that does not exist should exit 5 (no such target)"; fail=1; }
[ "$(sha256sum <"$share/old.jfr")" = "$before" ] || { echo "record-kill: FAILED: old.jfr changed"; fail=1; }
left=$(cd "$share" && ls -a | grep 'old\.jfr.' | tr '\n' ' ')
[ -z "$left" ] || { echo "record-kill: FAILED: files left beside old.jfr: $left"; fail=1; }
[ $fail = 0 ] && echo "record-kill: ok"
exit $fail
