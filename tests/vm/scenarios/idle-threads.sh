# A system-wide session whose thread table is full of threads that ran once and now sleep must
# still sample every other thread.  `sleepers 400 5 1` starts 400 threads that each burn 5 ms and
# block for good, more than the session's 256 slots (--max-threads 256), then two threads of its
# own burn 1 s of CPU time each.  Those two must have samples, no tick may be lost for want of a
# slot (lost_no_thread_slot 0) and the identity must hold.  Before idle entries were reclaimed, the
# sleepers kept every slot until the process exited: the thread started after them got no sample
# (the main thread kept the entry it had since before them) and 1805 ticks were lost that way.
set -u
share=${LFR_SHARE:-/tmp}
fail=0
field() { tr ' ' '\n' | sed -n "s/^$1=//p" | head -n 1; }
lfr raw -a -F 999 --max-threads 256 -o "$share/idle-threads.txt" &
raw=$!
for i in $(seq 300); do
	[ "$(lfr status -m 2>/dev/null | field state)" = running ] && break
	sleep 0.1
done
sleepers 400 5 1 >"$share/sleepers.txt"
rc=$?
cat "$share/sleepers.txt"
kill -INT $raw
wait $raw
rawrc=$?
tids=$(sed -n 's/^sleepers workload tids=//p' "$share/sleepers.txt")
st=$(grep '^status ' "$share/idle-threads.txt" | head -n 1)
echo "idle-threads: lfr raw exit $rawrc: ticks_matched=$(echo "$st" | field ticks_matched) threads=$(echo "$st" | field threads) threads_reclaimed=$(echo "$st" | field threads_reclaimed) lost_no_thread_slot=$(echo "$st" | field lost_no_thread_slot)"
grep -E '^check ticks_identity' "$share/idle-threads.txt"
[ $rc = 0 ] && [ -n "$tids" ] || { echo "idle-threads: FAILED: sleepers exited $rc"; fail=1; }
[ $rawrc = 0 ] || { echo "idle-threads: FAILED: lfr raw exited $rawrc"; fail=1; }
for tid in $(echo "$tids" | tr ',' ' '); do
	n=$(grep -c "^sample .* tid=$tid " "$share/idle-threads.txt")
	echo "idle-threads: workload thread $tid: $n samples"
	[ "$n" -gt 0 ] || { echo "idle-threads: FAILED: thread $tid has no sample"; fail=1; }
done
[ "$(echo "$st" | field lost_no_thread_slot)" = 0 ] ||
	{ echo "idle-threads: FAILED: ticks lost for want of a thread slot"; fail=1; }
[ $fail = 0 ] && echo "idle-threads: ok"
exit $fail
