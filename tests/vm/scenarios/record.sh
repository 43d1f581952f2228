# `lfr record` end to end: a known call graph, a system-call-heavy program with kernel stacks, a
# recorder killed with SIGKILL mid-run, and bad input.  record.host checks the files with the JDK.
set -u
share=${LFR_SHARE:-/tmp}
secs=4
[ "${LFR_KERNEL:-stock}" = debug ] && secs=6
fail=0
# Waits until a session runs, however slow this machine is (TCG on a busy host).
wait_running() {
	for i in $(seq 300); do lfr status -m | grep -q 'state=running' && return 0; sleep 0.1; done
	echo "record: FAILED: no session running after 30 s"; fail=1
}

# 1. The known call graph, with kernel stacks.
lfr record -F 999 -k -o "$share/callgraph.jfr" -- callgraph "$secs" >"$share/callgraph.out" 2>"$share/callgraph.err"
rc=$?
cat "$share/callgraph.err"
[ $rc = 0 ] || { echo "record: FAILED: lfr record -- callgraph exited $rc"; fail=1; }
lfr status -m >"$share/callgraph.status"
cat "$share/callgraph.status"
# Rings sized by default: 999 Hz + 10 % jitter, 48 + 8 * 64 + 56 + 8 * (127 + 16) = 1760 bytes per
# tick, 0.5 s of it is 237 pages, the next power of two 256 (the module's own default is 64).
grep -q ' ring_pages=256 ' "$share/callgraph.status" ||
	{ echo "record: FAILED: default rings for -F 999 -k are not 256 pages"; fail=1; }
grep -q '^  rings: 256 pages per CPU' "$share/callgraph.err" ||
	{ echo "record: FAILED: the summary does not print the ring size chosen"; fail=1; }

# 1b. Both JDK sample events (JDK 25's jdk.CPUTimeSample too): record.host reads them with JDK 25.
lfr record -F 999 --events both -q -o "$share/both.jfr" -- callgraph 2 >/dev/null ||
	{ echo "record: FAILED: lfr record --events both"; fail=1; }

# 1c. The recorder's own memory in 4 KiB pages, never transparent huge pages (user/cli/runner.h),
#     while the command it runs keeps the setting it would have had (this shell's: 0 on a kernel
#     built without THP, as the debug kernel is).
thp_of() { awk '/^THP_enabled:/ { print $2 }' "$1"; }
base=$(thp_of /proc/self/status)
lfr record -q -o /tmp/thp.jfr -- grep '^THP_enabled:' /proc/self/status >"$share/thp.out" 2>&1
cmd=$(thp_of "$share/thp.out")
[ -n "$base" ] && [ "$cmd" = "$base" ] ||
	{ echo "record: FAILED: the recorded command's THP_enabled is '$cmd', not this shell's '$base'"; fail=1; }
lfr record -a -q -o /tmp/thp-a.jfr -d 3 &
rec=$!
wait_running
thp=$(thp_of /proc/$rec/status)
wait $rec
if [ "$thp" = 0 ]; then
	echo "record: the recorder runs without THP, its command as this shell (THP_enabled $base)"
else
	echo "record: FAILED: the recorder runs with THP_enabled '$thp'"; fail=1
fi
rm -f /tmp/thp.jfr /tmp/thp-a.jfr

# 2. A program that lives in system calls: kernel frames must be named.
lfr record -F 999 -k -o "$share/syscalls.jfr" -- syscalls busy 3 2 >/dev/null 2>"$share/syscalls.err"
rc=$?
cat "$share/syscalls.err"
[ $rc = 0 ] || { echo "record: FAILED: lfr record -- syscalls exited $rc"; fail=1; }
lfr status -m >"$share/syscalls.status"

# 2b. A program that lives in clock_gettime: its vDSO frames are named (the symbolizer's own vDSO,
#     or the image copied from the process), none is left as a bare address.
lfr record -F 999 -k -q -o "$share/vdso.jfr" -- syscalls clock 2 1 >/dev/null 2>"$share/vdso.err" ||
	{ cat "$share/vdso.err"; echo "record: FAILED: lfr record -- syscalls clock"; fail=1; }
lfr report -n 40 "$share/vdso.jfr" >"$share/vdso.txt" 2>&1
grep "(vdso)$" "$share/vdso.txt" | head -n 6
# (x86-64's vDSO names it __vdso_clock_gettime or clock_gettime, arm64's __kernel_clock_gettime)
grep -Eq ' (__vdso_|__kernel_)?clock_gettime +\(vdso\)$' "$share/vdso.txt" ||
	{ echo "record: FAILED: no vDSO frame named clock_gettime"; fail=1; }
grep -Eq ' 0x[0-9a-f]{9,} +\(vdso\)$' "$share/vdso.txt" &&
	{ echo "record: FAILED: a vDSO frame is left as an address"; fail=1; }

# 3. kill -9 of the recorder mid-run: the file stays readable up to its last flush, and the kernel
#    session ends by itself (its controlling socket closed).
spin 60 &
spin_pid=$!
lfr record -F 999 -q -o "$share/killed.jfr" -p $spin_pid &
rec_pid=$!
wait_running
sleep 3.5
kill -9 $rec_pid
wait $rec_pid 2>/dev/null
state=""
# (60 s: a liveness bound, not a speed test)
for i in $(seq 600); do
	state=$(lfr status -m | tr ' ' '\n' | sed -n 's/^state=//p')
	[ "$state" = stopped ] && break
	sleep 0.1
done
kill $spin_pid
wait $spin_pid 2>/dev/null
echo "record: after kill -9 the session is $state"
[ "$state" = stopped ] || { echo "record: FAILED: session not stopped after the recorder was killed"; fail=1; }
ls -l "$share/killed.jfr"

# 4. Ctrl-C (SIGINT) ends a recording cleanly, here with small chunks rotated by size and age.
spin 60 &
spin_pid=$!
lfr record -F 4999 -q --chunk-size 65536 --chunk-age 1 -o "$share/sigint.jfr" -p $spin_pid &
rec_pid=$!
wait_running
sleep 3.5
kill -INT $rec_pid
wait $rec_pid
rc=$?
kill $spin_pid
wait $spin_pid 2>/dev/null
echo "record: after SIGINT lfr record exited $rc"
# 4999 Hz without -k: 1248 bytes per tick, 0.5 s is 838 pages, so 1024.
lfr status -m | grep -q ' ring_pages=1024 ' ||
	{ echo "record: FAILED: default rings for -F 4999 are not 1024 pages"; fail=1; }
[ $rc = 0 ] || { echo "record: FAILED: lfr record exited $rc after SIGINT"; fail=1; }

# 5. System-wide: every user thread, here two processes (running for the whole recording however
#    slowly this machine starts it).
spin 60 &
sys_spin=$!
callgraph 60 >/dev/null &
sys_cg=$!
lfr record -a -d 2 -o "$share/system.jfr" 2>&1 | tail -n 3
kill $sys_spin $sys_cg
wait

# 6. Bad input: clear errors, distinct exit statuses, no file left behind.
lfr record -o "$share/bad.jfr" -p 999999 2>"$share/bad.err"
rc=$?
cat "$share/bad.err"
[ $rc = 5 ] || { echo "record: FAILED: a missing pid exited $rc, not 5"; fail=1; }
[ ! -e "$share/bad.jfr" ] || { echo "record: FAILED: a failed start left bad.jfr behind"; fail=1; }
lfr record -F 0 -a 2>/dev/null
rc=$?
[ $rc = 2 ] || { echo "record: FAILED: -F 0 exited $rc, not 2"; fail=1; }
lfr record -o /nonexistent/dir/x.jfr -a -d 1 2>"$share/io.err"
rc=$?
cat "$share/io.err"
[ $rc = 6 ] || { echo "record: FAILED: an unwritable output exited $rc, not 6"; fail=1; }
exit $fail
