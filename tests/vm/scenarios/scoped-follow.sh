# A launched command and everything it starts: `lfr record -- sh -c 'named ... & named ...; wait'`
# records both children and all their threads, with the names they set (prctl, pthread_setname_np)
# and jdk.ThreadStart/jdk.ThreadEnd with the right parents, also the end of a thread that execs
# (threadexec: it goes on under the main thread's id); scoped-follow.host checks with the JDK.
# Then a system-wide recording with kernel stacks shows which threads -a covers.
set -u
share=${LFR_SHARE:-/tmp}
secs=2
[ "${LFR_KERNEL:-stock}" = debug ] && secs=3
fail=0

lfr record -F 99 -o "$share/follow.jfr" -- sh -c "named $secs 2 fa & named $secs 3 fb & threadexec $secs; wait" \
	>"$share/follow.out" 2>"$share/follow.err"
rc=$?
cat "$share/follow.out" "$share/follow.err"
[ $rc = 0 ] || { echo "scoped-follow: FAILED: lfr record -- sh -c ... exited $rc"; fail=1; }
lfr status -m >"$share/follow.status"
n=$(grep -c '^named pid=' "$share/follow.out")
[ "$n" = 7 ] || { echo "scoped-follow: FAILED: expected 7 named threads, the workload printed $n"; fail=1; }
grep -q '^threadexec after ' "$share/follow.out" || { echo "scoped-follow: FAILED: threadexec did not exec"; fail=1; }

# System-wide with kernel stacks: user threads only; kernel threads are counted, not sampled.
# The workload runs until the recording is over, and the recording starts once both its threads
# have named themselves (handshakes: a loaded host once ended a 4-second workload early).
named 600 1 sw >"$share/system.out" &
wl=$!
for i in $(seq 600); do [ "$(grep -c '^named pid=' "$share/system.out")" -ge 2 ] && break; sleep 0.1; done # liveness bound only
lfr record -a -k -F 99 -d 2 -o "$share/system.jfr" 2>"$share/system.err"
rc=$?
kill $wl
wait $wl
cat "$share/system.err"
[ $rc = 0 ] || { echo "scoped-follow: FAILED: lfr record -a exited $rc"; fail=1; }
lfr status -m >"$share/system.status"
tr ' ' '\n' <"$share/system.status" | grep -E '^(ticks|ticks_matched|skip_idle|skip_kthread|records_task)='
exit $fail
