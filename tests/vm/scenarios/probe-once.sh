# Sessions do not rewrite the scheduler's code: the sched_switch probe and the task-event probes
# (fork, exit, exec, free, rename) are attached by the first session and stay attached until rmmod
# (Documentation/kernel.md, "Sampling").  The static keys of sched_switch and sched_process_fork
# (struct tracepoint: name, then the key's enable count) are read through /proc/kcore, as
# "switch/fork": one more than before lfr after the first session, unchanged by the next ones, back
# to the counts before lfr after rmmod.  Each session must still sample its own target: the probe
# finds the running session through a pointer that every START publishes.
set -u
share=${LFR_SHARE:-/tmp}
fail=0
field() { tr ' ' '\n' | sed -n "s/^$1=//p" | head -n 1; }
have_kcore=0
[ -e /proc/kcore ] && kpeek __tracepoint_sched_switch 8 4 >/dev/null && have_kcore=1
[ $have_kcore = 1 ] || echo "probe-once: no /proc/kcore on this kernel: the key is not checked (-), the sessions are"
key() {
	if [ $have_kcore = 1 ]; then
		echo "$(kpeek __tracepoint_sched_switch 8 4)/$(kpeek __tracepoint_sched_process_fork 8 4)"
	else
		echo -
	fi
}
plus1() { echo "$((${1%/*} + 1))/$((${1#*/} + 1))"; }

k0=$(key)
keys=""
for i in 1 2 3; do
	# the target spins until the recording is over (a handshake: a loaded host once made a
	# spin of 3 s end before the session started)
	spin 600 >spin$i.txt &
	wpid=$!
	lfr record -F 999 -p $wpid -d 1 -o "$share/run$i.jfr" 2>"$share/run$i.err"
	rc=$?
	kill $wpid
	wait $wpid
	st=$(lfr status -m)
	m=$(echo "$st" | field ticks_matched)
	keys="$keys $(key)"
	echo "probe-once: session $i: lfr record exit $rc, ticks_matched=$m, key enable counts (switch/fork) after stop:$(echo "$keys" | awk '{ print " " $NF }')"
	[ $rc = 0 ] || { echo "probe-once: FAILED: lfr record exited $rc: $(cat "$share/run$i.err")"; fail=1; }
	[ "${m:-0}" -gt 0 ] || { echo "probe-once: FAILED: session $i sampled nothing"; fail=1; }
done
rmmod lfr || { echo "probe-once: FAILED: rmmod"; fail=1; }
k_rmmod=$(key)
insmod /lib/lfr/lfr.ko || { echo "probe-once: FAILED: insmod after rmmod"; fail=1; }
echo "probe-once: key enable counts (switch/fork): before lfr $k0, after each session$keys, after rmmod $k_rmmod"
if [ $have_kcore = 1 ]; then
	want=$(plus1 "$k0")
	for k in $keys; do
		[ "$k" = "$want" ] || { echo "probe-once: FAILED: enable counts $k after a stop, want $want (attached once, kept until rmmod)"; fail=1; }
	done
	[ "$k_rmmod" = "$k0" ] || { echo "probe-once: FAILED: enable counts $k_rmmod after rmmod, want $k0"; fail=1; }
fi
# the reloaded module attaches again
spin 600 >spin4.txt &
wpid=$!
lfr record -F 999 -p $wpid -d 1 -o "$share/run4.jfr" 2>"$share/run4.err" || { echo "probe-once: FAILED: lfr record after reload"; fail=1; }
kill $wpid
wait $wpid
m=$(lfr status -m | field ticks_matched)
[ "${m:-0}" -gt 0 ] || { echo "probe-once: FAILED: the session after reload sampled nothing"; fail=1; }
[ $have_kcore = 1 ] && [ "$(key)" != "$(plus1 "$k0")" ] && { echo "probe-once: FAILED: enable counts $(key) after reload and a session, want $(plus1 "$k0")"; fail=1; }
[ $fail = 0 ] && echo "probe-once: ok"
exit $fail
