# The module reference a session's last walk hands over must not let rmmod free the module while
# that walk still runs module code.  With the test parameter test_walk_done_sleep_ms every walk
# sleeps 1.5 s when it gives its object back (as a walk whose cache refill blocks in reclaim); a
# session of 'spin' is recorded and stopped, and rmmod is retried every 0.1 s while its last walk
# sleeps.  rmmod must only succeed once that walk has left the module: a walk that handed the
# reference over before sleeping is still asleep in the module's code when rmmod succeeds (seen in
# /proc/PID/stack) and runs freed module text when it wakes.
set -u
fail=0
param=/sys/module/lfr/parameters/test_walk_done_sleep_ms
[ -w $param ] || { echo "walk-unload: FAILED: no $param"; exit 1; }
echo 1500 >$param
spin 600 &  # until killed below: a loaded host must not end it before the session starts
spid=$!
lfr raw -p $spid -F 99 -d 1 -q >/dev/null 2>err.txt ||
	{ echo "walk-unload: FAILED: lfr raw: $(cat err.txt)"; fail=1; }
t0=$(cut -d' ' -f1 /proc/uptime)
tries=0
while [ $tries -lt 100 ]; do
	tries=$((tries + 1))
	rmmod lfr 2>/dev/null && break
	sleep 0.1
done
t1=$(cut -d' ' -f1 /proc/uptime)
# where the sampled thread is in the kernel right after the unload: freed module text is still
# mapped for a while (vmalloc unmaps lazily), so running it need not crash; a thread still asleep
# in the walk's msleep is the proof that the module went away under it
kstack=$(cat /proc/$spid/task/*/stack 2>/dev/null)
if grep -q '^lfr ' /proc/modules; then
	echo "walk-unload: FAILED: rmmod still refused after $tries tries"; fail=1
else
	echo "walk-unload: rmmod succeeded at try $tries, $t0 -> $t1 s of uptime"
	if echo "$kstack" | grep -q msleep; then
		echo "walk-unload: FAILED: the module was unloaded while a walk slept in it:"
		echo "$kstack"
		fail=1
	fi
fi
# the walk that slept (if the module is gone under it, this is where the kernel reports it)
sleep 3
kill $spid 2>/dev/null
wait $spid 2>/dev/null
insmod /lib/lfr/lfr.ko || { echo "walk-unload: FAILED: insmod after the unload"; fail=1; }
lfr status -m >/dev/null || { echo "walk-unload: FAILED: the reloaded module does not answer"; fail=1; }
[ $fail = 0 ] && echo "walk-unload: ok"
exit $fail
