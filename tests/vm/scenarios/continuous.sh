# The flight recorder: a continuous system-wide recording (999 Hz, kernel stacks, 1 s chunks) into
# a repository capped at 2 MB runs for 30 s under load, and until the cap has made it evict its
# first chunk.  Every second the repository holds no more than the cap plus one chunk.  Meanwhile
# `lfr record -F 4999 -- split` records a command on its own (every tick accounted for; the split
# against the workload's truth and every chain, in continuous.host) and ends without stopping the
# continuous one; `lfr dump --last 10s` writes the last 10 s; kill -9 of the continuous recorder
# leaves its repository readable up to its last flush, its session stops, a new recorder takes the
# repository over, and the harness's rmmod succeeds.  continuous.host reads the files with the JDK.
set -u
share=${LFR_SHARE:-/tmp}
repo=/tmp/lfr-repo # a local file system: the repository's lock is an flock
cap=$((2 << 20))
chunk=$((cap / 4))
secs=30
fail=0
repo_bytes() { stat -c %s "$repo"/*Z.jfr 2>/dev/null | awk '{s += $1} END {print s + 0}'; }

spin 600 >/dev/null &
load1=$!
syscalls busy 600 1 >/dev/null &
load2=$!
lfr record -a -F 999 -k --chunk-age 1s --repository "$repo" --max-size 2M --max-age 10m >"$share/cont.out" 2>"$share/cont.err" &
rec=$!
for i in $(seq 300); do lfr status -m | grep -q 'state=running' && break; sleep 0.1; done
start=$(date +%s)
oldest0=$(ls "$repo" | grep 'Z.jfr$' | head -n 1)
most=0 evicted=0
split_pid="" split_done=0
# every second: the repository's size; after 10 s, a recording of a command of its own at 4999 Hz
# in the background.  The loop ends after $secs seconds once that recording has ended and the cap
# has made the repository evict its first chunk (a slow machine writes less per second: it takes
# longer there, up to 300 s)
while [ $(($(date +%s) - start)) -lt $secs ] || [ $split_done = 0 ] ||
	{ [ $evicted = 0 ] && [ $(($(date +%s) - start)) -lt 300 ]; }; do
	[ -e "$repo/$oldest0" ] || evicted=1
	b=$(repo_bytes)
	[ "$b" -gt "$most" ] && most=$b
	if [ "$b" -gt $((cap + chunk)) ]; then
		echo "continuous: FAILED: the repository holds $b bytes, more than the cap $cap plus a chunk $chunk"
		ls -l "$repo"
		fail=1
	fi
	if [ -z "$split_pid" ] && [ $(($(date +%s) - start)) -ge 10 ]; then
		lfr record -F 4999 -o "$share/cont-split.jfr" -- split 5 >"$share/cont-split.txt" 2>"$share/cont-split.err" &
		split_pid=$!
	elif [ -n "$split_pid" ] && [ $split_done = 0 ] && ! kill -0 $split_pid 2>/dev/null; then
		wait $split_pid
		rc=$?
		split_done=1
		grep -E 'samples|lost' "$share/cont-split.err"
		[ $rc = 0 ] || { echo "continuous: FAILED: lfr record -- split exited $rc"; cat "$share/cont-split.err"; fail=1; }
		# every tick that hit the command is a sample or a counted loss in its file
		! grep -q 'ticks hit the targets but' "$share/cont-split.err" ||
			{ echo "continuous: FAILED: the split recording does not account for every tick"; fail=1; }
		n=$(lfr status -m | grep -c 'state=running')
		echo "continuous: after the split recording ended, sessions running: $n"
		kill -0 $rec 2>/dev/null && [ "$n" -ge 1 ] ||
			{ echo "continuous: FAILED: the continuous recording stopped with the other one"; fail=1; }
	fi
	sleep 1
done
echo "continuous: after $(($(date +%s) - start)) s the repository held at most $most bytes (cap $cap, chunk limit $chunk); now $(ls "$repo" | grep -c 'Z.jfr$') chunk files, from $(ls "$repo" | grep 'Z.jfr$' | head -n 1); the first, $oldest0, evicted: $evicted"
[ $evicted = 1 ] || { echo "continuous: FAILED: the cap never made the repository evict a chunk"; fail=1; }
echo "${LFR_KERNEL:-stock}" >"$share/kernel"
date +%s >"$share/dump-time"
lfr dump --last 10s -o "$share/last10.jfr" "$repo" || { echo "continuous: FAILED: lfr dump --last 10s"; fail=1; }
date +%s >"$share/dump-end"
lfr dump -q -o "$share/all.jfr" "$repo" || { echo "continuous: FAILED: lfr dump"; fail=1; }

# kill -9: the module stops the session (its socket closed); the repository stays readable
sleep 1.5
kill -9 $rec
wait $rec 2>/dev/null
n=1
for i in $(seq 20); do
	n=$(lfr status -m | grep -c 'state=running')
	[ "$n" = 0 ] && break
	sleep 0.5
done
echo "continuous: after kill -9 of the recorder, sessions running: $n"
[ "$n" = 0 ] || { echo "continuous: FAILED: the session did not stop"; lfr status; fail=1; }
ls -l "$repo"
lfr dump -o "$share/killed.jfr" "$repo" || { echo "continuous: FAILED: lfr dump after kill -9"; fail=1; }
lfr report "$share/killed.jfr" | head -n 3
b=$(repo_bytes)
[ "$b" -le $((cap + chunk)) ] || { echo "continuous: FAILED: $b bytes after the kill"; fail=1; }
# the next recorder takes the repository over
lfr record -a -F 99 -d 1 -q --repository "$repo" --max-size 2M || { echo "continuous: FAILED: a second recorder on the repository"; fail=1; }
kill $load1 $load2
wait $load1 $load2 2>/dev/null
exit $fail
