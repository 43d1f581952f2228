# Scoped recording by cgroup v2 (lfr record -c).  scoped-cgroup.host checks the files with the JDK.
#  1. Two busy processes in two sibling cgroups; the recording of one cgroup must hold no sample of
#     the other, and at least 95% of CPU time x frequency for a process living in a child cgroup of
#     the target: its CPU time inside the cgroup, from /proc/PID/stat utime+stime read right after
#     it moved in (before its exec) and again while it is a zombie.
#  2. A process moved into the target cgroup mid-recording is sampled from then on only; one moved
#     out is sampled until then only (cgmove prints the move times).
#  3. Bad cgroups: a missing path, a removed cgroup's id.
set -u
share=${LFR_SHARE:-/tmp}
cg=/sys/fs/cgroup
F=49
secs=3
[ "${LFR_KERNEL:-stock}" = debug ] && secs=6
fail=0
mkdir -p $cg/lfrA/sub $cg/lfrB

# /proc/PID/stat fields 14 and 15 (utime, stime) in clock ticks, once PID is a zombie.
cpu_ticks_at_exit() {
	while [ "$(cut -d' ' -f3 /proc/$1/stat)" != Z ]; do sleep 0.05; done
	cut -d' ' -f14,15 /proc/$1/stat | { read -r u s; echo $((u + s)); }
}

# 1. Siblings.
sh -c "echo \$\$ >$cg/lfrB/cgroup.procs; exec spin 60" &
bpid=$!
lfr record -F $F -G lfrA -o "$share/cgroup.jfr" -d $((secs + 6)) 2>"$share/cgroup.err" &
rec=$!
# The target must start after sampling has: wait for the session, however slow this machine is.
for i in $(seq 200); do lfr status -m | grep -q 'state=running' && break; sleep 0.1; done
sleep 0.5
# The shell moves itself in, notes its CPU time so far (read is a builtin: no fork), then execs.
sh -c "echo \$\$ >$cg/lfrA/sub/cgroup.procs; read -r st </proc/\$\$/stat; echo \$st >$share/cgroup.in;
	exec spin $secs" &
apid=$!
aticks=$(cpu_ticks_at_exit $apid)
before=$(cut -d' ' -f14,15 "$share/cgroup.in" | { read -r u s; echo $((u + s)); })
echo "scoped-cgroup: target pid=$apid cpu_ticks=$aticks, $before of them before it moved in"
aticks=$((aticks - before))
wait $apid
wait $rec
rc=$?
cat "$share/cgroup.err"
[ $rc = 0 ] || { echo "scoped-cgroup: FAILED: lfr record -G exited $rc"; fail=1; }
bticks=$(cut -d' ' -f14,15 /proc/$bpid/stat | { read -r u s; echo $((u + s)); })
echo "scoped-cgroup: target pid=$apid cpu_ticks=$aticks; other pid=$bpid cpu_ticks=$bticks; F=$F"
echo "target=$apid other=$bpid target_cpu_ticks=$aticks clk_tck=100 freq=$F" >"$share/cgroup.expect"

# 2. Moves: leaver (in lfrA) is moved out to lfrB, joiner (in the root) is moved into lfrA.
sh -c "echo \$\$ >$cg/lfrA/cgroup.procs; exec spin 60" &
leaver=$!
spin 60 &
joiner=$!
lfr record -F $F -G $cg/lfrA -o "$share/move.jfr" 2>"$share/move.err" &
rec=$!
for i in $(seq 300); do lfr status -m | grep -q 'state=running' && break; sleep 0.1; done
# Each step once a process has run 1 s of CPU time (100 clock ticks, 49 samples) since the one
# before, not after so many seconds: a loaded guest runs the spinners slowly, and the check wants
# samples of each in the cgroup and out of it.
cpu_ticks() { cut -d' ' -f14,15 "/proc/$1/stat" | { read -r u s; echo $((u + s)); }; }
run_cpu() {
	local until=$(($(cpu_ticks "$1") + $2))
	while [ "$(cpu_ticks "$1")" -lt $until ]; do sleep 0.1; done
}
run_cpu $leaver 100
cgmove $joiner $cg/lfrA >"$share/move.times"
run_cpu $joiner 100
cgmove $leaver $cg/lfrB >>"$share/move.times"
run_cpu $leaver 100
kill -TERM $rec
wait $rec
rc=$?
cat "$share/move.err" "$share/move.times"
[ $rc = 0 ] || { echo "scoped-cgroup: FAILED: lfr record -G (moves) exited $rc"; fail=1; }
echo "joiner=$joiner leaver=$leaver other=$bpid" >"$share/move.expect"
kill $bpid $leaver $joiner
wait $bpid $leaver $joiner 2>/dev/null

# 3. Bad cgroups: clear errors, usage status for a path, no file left behind.
lfr record -G lfr-no-such-cgroup -o "$share/bad.jfr" -d 1 2>"$share/bad.err"
rc=$?
cat "$share/bad.err"
[ $rc = 2 ] || { echo "scoped-cgroup: FAILED: a missing cgroup path exited $rc, not 2"; fail=1; }
grep -q "no cgroup" "$share/bad.err" || { echo "scoped-cgroup: FAILED: no clear message"; fail=1; }
mkdir $cg/lfrGone
gone=$(ls -di $cg/lfrGone | { read -r i _; echo $i; })
rmdir $cg/lfrGone
lfr record -G "$gone" -o "$share/bad.jfr" -d 1 2>"$share/gone.err"
rc=$?
cat "$share/gone.err"
[ $rc != 0 ] || { echo "scoped-cgroup: FAILED: a removed cgroup id was accepted"; fail=1; }
[ ! -e "$share/bad.jfr" ] || { echo "scoped-cgroup: FAILED: a failed start left bad.jfr behind"; fail=1; }
rmdir $cg/lfrA/sub $cg/lfrA $cg/lfrB
exit $fail
