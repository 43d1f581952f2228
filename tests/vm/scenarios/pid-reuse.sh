# A target process's number, reused by a new process after the target exited, does not make the
# new process a target: targets are held as struct pid references, compared by identity.  A `spin`
# is the target of a detached session; it is killed; pids are cycled (a small pid_max) until a new
# `spin` gets the same number (pids wrap from pid_max to 300, so the target is placed above 300).  That spin runs 3 s of CPU time at 999 Hz: the session must match no
# tick at all.
set -u
fail=0
field() { tr ' ' '\n' | sed -n "s/^$1=//p" | head -n 1; }
echo 400 >/proc/sys/kernel/pid_max
p=0
while [ $p -lt 300 ]; do true & p=$!; wait $p; done
spin 600 &
target=$!
lfr raw --detach -F 999 -p $target >/dev/null || { echo "pid-reuse: FAILED: START"; exit 1; }
sleep 1
matched=$(lfr status -m | field ticks_matched)
echo "pid-reuse: target $target sampled: ticks_matched=$matched"
[ "${matched:-0}" -gt 0 ] || { echo "pid-reuse: FAILED: the live target was not sampled"; fail=1; }
kill $target
wait $target 2>/dev/null
before=$(lfr status -m | field ticks_matched)
# cycle the pids until the next one is the target's old number, then start a new spin there
new=0
for round in 1 2 3; do
	while :; do
		true &
		p=$!
		wait $p
		[ $p = $((target - 1)) ] && break
	done
	spin 3 &
	new=$!
	[ $new = $target ] && break
	wait $new
done
echo "pid-reuse: a new spin has the old target's number: $new"
[ $new = $target ] || { echo "pid-reuse: FAILED: could not reuse pid $target"; fail=1; }
wait $new
st=$(lfr status -m)
after=$(echo "$st" | field ticks_matched)
echo "pid-reuse: ticks_matched before the new spin $before, after it $after; state $(echo "$st" | field state)"
[ "$after" = "$before" ] || { echo "pid-reuse: FAILED: the process that reused the number was sampled"; fail=1; }
lfr stop >/dev/null || { echo "pid-reuse: FAILED: lfr stop"; fail=1; }
[ $fail = 0 ] && echo "pid-reuse: ok"
exit $fail
