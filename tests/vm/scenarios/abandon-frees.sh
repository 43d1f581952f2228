# A session whose walks STOP gave up is freed although their threads stay blocked: a queued walk
# holds only its own small object (kmod/walk_obj.c), not the session's rings and tables.  A
# detached system-wide session samples `syscalls pipe` threads while they copy into full pipes,
# and they block there with their walks queued; `lfr stop --timeout` gives the walks up; the next
# START forgets the stopped session.  The rings are vmalloc memory: VmallocUsed (/proc/meminfo)
# must come back to within 2 MB of what it was before the session while the threads are still
# blocked with their task_works queued.
set -u
fail=0
field() { tr ' ' '\n' | sed -n "s/^$1=//p" | head -n 1; }
vm() { awk '/^VmallocUsed:/ { print $2 }' /proc/meminfo; }

v0=$(vm)
# a detached system-wide session; 1024 pages per CPU ring (4 MiB per CPU) stand far above the
# noise of VmallocUsed
lfr raw --detach -a -F 10000 -k --ring-pages 1024 >/dev/null ||
	{ echo "abandon-frees: FAILED: could not start a detached session"; exit 1; }
syscalls pipe 8 >pipe.txt &
wpid=$!
# until a thread has blocked with its walk queued, however long a loaded machine takes to get
# there (600 s: a liveness bound only)
for i in $(seq 6000); do
	[ "$(lfr status -m | field works_pending)" -ge 1 ] 2>/dev/null && break
	sleep 0.1
done
st=$(lfr status -m)
sid=$(echo "$st" | field session)
v1=$(vm)
echo "abandon-frees: session $sid $(echo "$st" | field state), works_pending=$(echo "$st" | field works_pending); VmallocUsed ${v0} kB before, ${v1} kB while sampling"
out=$(lfr stop -S "$sid" --timeout 500 -m)
echo "abandon-frees: lfr stop: $out"
state=$(echo "$out" | field state)
lost=$(echo "$out" | field lost_abandoned)
# the next START forgets the stopped session; its own rings are the smallest there are
lfr raw -a -d 0.2 --ring-pages 2 --max-threads 16 -q >/dev/null 2>&1
sleep 1
v2=$(vm)
blocked=$(ls /proc/"${wpid:-0}"/task 2>/dev/null | wc -l)
echo "abandon-frees: after stop and the next START: VmallocUsed ${v2} kB ($((v2 - v0)) kB above before); lost_abandoned=$lost; workload ${wpid:-?} still has $blocked threads"
[ "$state" = stopped ] || { echo "abandon-frees: FAILED: not stopped after lfr stop: $out"; fail=1; }
[ "${lost:-0}" -gt 0 ] 2>/dev/null || { echo "abandon-frees: FAILED: no walk was given up"; fail=1; }
[ "$blocked" -gt 1 ] || { echo "abandon-frees: FAILED: the workload's threads were gone before the check"; fail=1; }
[ $((v1 - v0)) -ge 8192 ] || { echo "abandon-frees: FAILED: the session's rings were not seen in VmallocUsed ($((v1 - v0)) kB)"; fail=1; }
[ $((v2 - v0)) -lt 2048 ] || { echo "abandon-frees: FAILED: the abandoned session's memory is still held ($((v2 - v0)) kB)"; fail=1; }
# Once the threads exit, their given-up task_works run, free their objects and drop the module
# references they held: rmmod then succeeds (KASAN, on the debug kernel, watches the objects).
[ -n "$wpid" ] && kill "$wpid"
for i in $(seq 50); do
	rmmod lfr 2>/dev/null && break
	sleep 0.2
done
if grep -q '^lfr ' /proc/modules; then
	echo "abandon-frees: FAILED: rmmod refused after the workload exited: $(grep '^lfr ' /proc/modules)"
	fail=1
else
	echo "abandon-frees: rmmod succeeded after the workload exited"
	insmod /lib/lfr/lfr.ko || { echo "abandon-frees: FAILED: insmod"; fail=1; }
fi
[ $fail = 0 ] && echo "abandon-frees: ok"
exit $fail
