# A stack walk must never wait on user memory: `uffdstack` spins with its frame pointer aimed into a
# region registered with userfaultfd that nobody serves, where any page fault waits forever.  lfr
# reads user memory without faulting, so the walk ends as a user_fault, the recording ends on time,
# the session stops and the workload finishes; a walk that faulted would park the thread in the
# kernel for good, with STOP, the recorder and rmmod behind it.
set -u
share=${LFR_SHARE:-/tmp}
fail=0
field() { tr ' ' '\n' | sed -n "s/^$1=//p" | head -n 1; }

uffdstack 600 >uffd.txt & # until told to end, after the recording
wl=$!
pid=""
for i in $(seq 300); do # however slow this machine is
	pid=$(sed -n 's/^uffdstack pid=\([0-9]*\).*/\1/p' uffd.txt)
	[ -n "$pid" ] && break
	kill -0 $wl 2>/dev/null || break
	sleep 0.1
done
if [ -z "$pid" ]; then
	wait $wl
	echo "uffd: FAILED: the workload did not start (exit $?; 3 = no userfaultfd in this kernel)"
	exit 1
fi
cat uffd.txt
lfr raw -F 999 -p "$pid" -d 2 --drain-timeout 2000 -o "$share/uffd-dump.txt"
rc=$?
grep -E '^(check|summary) ' "$share/uffd-dump.txt" | grep -v ' ok ' 
st=$(lfr status -m)
echo "uffd: after lfr raw (exit $rc): state=$(echo "$st" | field state) ticks_matched=$(echo "$st" | field ticks_matched) ticks_committed=$(echo "$st" | field ticks_committed) user_fault=$(echo "$st" | field user_fault) works_pending=$(echo "$st" | field works_pending) lost_abandoned=$(echo "$st" | field lost_abandoned)"
[ $rc = 0 ] || { echo "uffd: FAILED: lfr raw exited $rc"; fail=1; }
[ "$(echo "$st" | field state)" = stopped ] || { echo "uffd: FAILED: the session did not stop"; fail=1; }
[ "$(echo "$st" | field user_fault)" -gt 0 ] 2>/dev/null || { echo "uffd: FAILED: no walk ended as a user fault"; fail=1; }
[ "$(echo "$st" | field lost_abandoned)" = 0 ] || { echo "uffd: FAILED: walks had to be given up"; fail=1; }
# The worker never blocked: the workload ends when told to.
kill -USR1 $wl
for i in $(seq 600); do kill -0 $wl 2>/dev/null || break; sleep 0.1; done
if kill -0 $wl 2>/dev/null; then
	echo "uffd: FAILED: the workload is stuck: $(cat /proc/$pid/task/*/wchan 2>/dev/null | tr '\n' ' ')"
	fail=1
	kill -9 $wl
fi
wait $wl
grep -q '^done' uffd.txt || { echo "uffd: FAILED: the workload did not finish"; fail=1; }
[ $fail = 0 ] && echo "uffd: ok"
exit $fail
