# rmmod during an active session with stack walks pending: a detached system-wide session samples
# `syscalls pipe` threads that then block in the kernel with their walks queued.  rmmod must either
# fail (the module stays usable) or stop the session cleanly; it must never crash.  Once the threads
# are gone, rmmod of the still-running detached session must fail with EBUSY (a running session
# holds the module, kernel.md), and after `lfr stop` it must succeed.
set -u
fail=0
field() { tr ' ' '\n' | sed -n "s/^$1=//p" | head -n 1; }
loaded() { grep -q '^lfr ' /proc/modules; }

lfr raw --detach -a -F 10000 -k || { echo "rmmod: FAILED: could not start a detached session"; exit 1; }
syscalls pipe 8 >pipe.txt &
wpid=$!
# until a thread has blocked with its walk queued, however long a loaded machine takes to get
# there (600 s: a liveness bound only)
for i in $(seq 6000); do
	[ "$(lfr status -m | field works_pending)" -ge 1 ] 2>/dev/null && break
	sleep 0.1
done
st=$(lfr status -m)
pending=$(echo "$st" | field works_pending)
echo "rmmod: session $(echo "$st" | field session) $(echo "$st" | field state), works_pending=$pending, ticks_matched=$(echo "$st" | field ticks_matched)"
[ "${pending:-0}" -ge 1 ] || { echo "rmmod: FAILED: no stack walk pending"; fail=1; }
if rmmod lfr 2>err.txt; then
	echo "rmmod: with walks pending: rmmod succeeded (session stopped by the unload)"
else
	echo "rmmod: with walks pending: rmmod refused: $(cat err.txt)"
	loaded || { echo "rmmod: FAILED: rmmod failed but the module is gone"; fail=1; }
	lfr status -m >/dev/null || { echo "rmmod: FAILED: module unusable after the refused rmmod"; fail=1; }
fi
kill $wpid
wait $wpid 2>/dev/null
sleep 1
if loaded; then
	st=$(lfr status -m)
	echo "rmmod: workload gone: state=$(echo "$st" | field state) works_pending=$(echo "$st" | field works_pending) lost_exit=$(echo "$st" | field lost_exit)"
	if rmmod lfr 2>err.txt; then
		echo "rmmod: FAILED: rmmod unloaded the module under a running session"; fail=1
	else
		echo "rmmod: detached session running: rmmod refused: $(cat err.txt)"
		# this shell is a target: a walk of its own may stay queued while it waits for
		# lfr stop, which gives such walks up after its timeout (-t, 2 s)
		lfr stop -m || { echo "rmmod: FAILED: lfr stop"; fail=1; }
		# the session drops its module reference just after it is stopped
		for i in $(seq 600); do [ "$(cat /sys/module/lfr/refcnt 2>/dev/null)" = 0 ] && break; sleep 0.1; done
		rmmod lfr 2>/dev/null
		loaded && { echo "rmmod: FAILED: rmmod after lfr stop"; fail=1; }
	fi
fi
loaded && { echo "rmmod: FAILED: the module is still loaded"; fail=1; }
insmod /lib/lfr/lfr.ko || { echo "rmmod: FAILED: insmod after rmmod"; fail=1; }
lfr status -m || fail=1
[ $fail = 0 ] && echo "rmmod: ok"
exit $fail
