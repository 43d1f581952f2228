# Off-CPU intervals: `offcpu` waits in three known ways on one thread (f: nanosleep ~300 ms,
# g: read() of a pipe fed 200 ms later, h: futex wait of 500 ms, each measured by the workload
# itself) while a second thread spins.  lfr records it with --off-cpu (and CPU samples at 999 Hz);
# offcpu.host checks each function's off-CPU time against the workload's own figures, the user
# and kernel stacks of every interval, and the spinning thread's CPU samples against its CPU time.
# Then the same with -G, the workload in a cgroup (the timer-mode sampler), and with -a into a
# repository, as the always-on service records, dumped.
# With kstack_check, every kernel stack an interval takes from the module's cache (x86-64) is
# unwound again and compared: the short waits, the same three on one CPU, must find some there,
# and every one the same as the unwinder's.
set -u
share=${LFR_SHARE:-/tmp}
rounds=4
fail=0
echo 1 >/sys/module/lfr/parameters/kstack_check
ctr() { lfr status -m | tr ' ' '\n' | sed -n "s/^$1=//p" | head -n 1; }
lfr record -F 999 --off-cpu -o "$share/offcpu.jfr" -- offcpu "$rounds" \
	>"$share/offcpu.txt" 2>"$share/offcpu.err"
rc=$?
cat "$share/offcpu.txt"
grep -E 'samples|lost|off-CPU|tid ' "$share/offcpu.err"
[ $rc = 0 ] || { echo "offcpu: FAILED: lfr record exited $rc"; cat "$share/offcpu.err"; fail=1; }
lfr status -m >"$share/status.txt" 2>&1
# Short waits (30, 20 and 50 ms) beside the spinning thread, all on one CPU: a woken thread that waits for the CPU
# the spinner holds, or is preempted again before it is back in user space, has all of that inside
# its wait, and the workload's clock counts all of it.  The workload pins itself (its third
# argument): under `taskset -c 1 offcpu`, lfr would load the unwind tables of offcpu and its libc
# only once the exec'd program maps them, and walk its first stacks (a whole short run) by frame
# pointers, whose stacks of a preemption inside libc may miss wait_loop.
lfr record -F 999 --off-cpu -o "$share/offcpu-short.jfr" -- offcpu 20 10 1 \
	>"$share/offcpu-short.txt" 2>"$share/offcpu-short.err"
rc=$?
cat "$share/offcpu-short.txt"
grep -E 'samples|lost|off-CPU' "$share/offcpu-short.err"
[ $rc = 0 ] || { echo "offcpu: FAILED: lfr record of short waits exited $rc"; cat "$share/offcpu-short.err"; fail=1; }
cached=$(ctr kstack_cached) mismatch=$(ctr kstack_mismatch) off=$(ctr offcpu)
echo "offcpu: kernel stacks of $off intervals: $cached from the cache, $mismatch of them unwound otherwise"
if [ "$(uname -m)" = x86_64 ]; then
	[ "${cached:-0}" -gt 0 ] || { echo "offcpu: FAILED: no kernel stack from the cache"; fail=1; }
else
	[ "${cached:-0}" = 0 ] || { echo "offcpu: FAILED: a kernel stack cache on $(uname -m)"; fail=1; }
fi
[ "${mismatch:-1}" = 0 ] || { echo "offcpu: FAILED: $mismatch cached kernel stacks differ from the unwinder's"; fail=1; }
# The same workload in a cgroup, recorded with -G: the timer-mode sampler, with the sched_switch
# probe stamping the switches of the cgroup's threads.  The recording is stopped (SIGINT) once
# the workload has exited: a handshake, not a time.
cg=/sys/fs/cgroup/lfroff
mkdir -p $cg
lfr record -F 999 --off-cpu -G lfroff -o "$share/offcpu-cg.jfr" 2>"$share/offcpu-cg.err" &
rec=$!
for i in $(seq 6000); do lfr status -m | grep -q 'state=running' && break; sleep 0.1; done # liveness bound only
sh -c "echo \$\$ >$cg/cgroup.procs; exec offcpu $rounds" >"$share/offcpu-cg.txt"
kill -INT $rec
wait $rec
rc=$?
cat "$share/offcpu-cg.txt"
grep -E 'samples|lost|off-CPU' "$share/offcpu-cg.err"
[ $rc = 0 ] || { echo "offcpu: FAILED: lfr record -G exited $rc"; cat "$share/offcpu-cg.err"; fail=1; }
rmdir $cg

# The always-on service's way, with --off-cpu in its options: every thread (-a) into a repository
# of chunk files, dumped after the workload has exited (a handshake, not a time).
repo=/tmp/offcpu-repo
lfr record -a -q -F 49 --off-cpu --chunk-age 1s --repository "$repo" --max-age 10m \
	2>"$share/offcpu-all.err" &
rec=$!
for i in $(seq 6000); do lfr status -m | grep -q 'state=running' && break; sleep 0.1; done # liveness bound only
offcpu "$rounds" >"$share/offcpu-all.txt"
kill -INT $rec
wait $rec
rc=$?
[ $rc = 0 ] || { echo "offcpu: FAILED: lfr record -a --repository exited $rc"; cat "$share/offcpu-all.err"; fail=1; }
mismatch=$(ctr kstack_mismatch)
echo "offcpu: -a: $(ctr kstack_cached) kernel stacks from the cache, $mismatch unwound otherwise"
[ "${mismatch:-1}" = 0 ] || { echo "offcpu: FAILED: -a: $mismatch cached kernel stacks differ from the unwinder's"; fail=1; }
lfr dump -o "$share/offcpu-all.jfr" "$repo" || { echo "offcpu: FAILED: lfr dump"; fail=1; }
rm -rf "$repo"
exit $fail
