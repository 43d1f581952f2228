# Recording one's own cgroup without privileges (kmod/permission.c; Documentation/kernel.md,
# "Recording without privileges").  alice (uid 1000) owns a delegated subtree, alice/, as
# systemd's Delegate= leaves one; other/ is root's.  With the module parameter unprivileged off,
# alice is refused.  With it on: lfr-nl (libnl, apart from liblfr) tries every way in the module
# closes, and maps nothing of root's session; alice records her subtree while her process, one
# of hers that made itself undumpable, a set-uid-root program she runs, one with her ids that
# keeps a capability she lacks, root's process and bob's run in it: only her process is in the
# file, the others counted as skipped (skip_creds); lfr record's refusals name the reason: a
# sibling cgroup, a process of root (-p 1), -a, a rate above user_max_freq_hz, rings above
# user_max_mb, kernel stacks at perf_event_paranoid 2 (allowed at 1); bob may not map alice's
# session; in a container of her own (user, network, pid namespaces) alice records her cgroup
# and nothing more, with the ids of her pid namespace; a socket closing in another network
# namespace stops no session (kernels with those namespaces).
set -u
fail=0
CG=/sys/fs/cgroup
P=/sys/module/lfr/parameters
share=${LFR_SHARE:-/tmp}
ok() { echo "unpriv: ok: $*"; }
bad() { echo "unpriv: FAILED: $*"; fail=1; }
as() {
	u=$1
	shift
	su -s /bin/sh "$u" -c "$*"
}
# as_bg PIDFILE COMMAND: COMMAND as alice, its own pid in PIDFILE (su would not pass on a signal
# sent to the shell that waits for it)
as_bg() {
	rm -f "$1"
	as alice "echo \$\$ >$1; exec $2"
}
echo 'alice:x:1000:1000::/tmp:/bin/sh' >>/etc/passwd
echo 'bob:x:1001:1001::/tmp:/bin/sh' >>/etc/passwd
echo 'alice:x:1000:' >>/etc/group
echo 'bob:x:1001:' >>/etc/group
mkdir -p $CG/alice $CG/other
chown alice:alice $CG/alice $CG/alice/cgroup.procs $CG/alice/cgroup.threads \
	$CG/alice/cgroup.subtree_control
as alice "mkdir $CG/alice/work" || bad "alice cannot make a cgroup in her subtree"
# in-cgroup CGROUP USER PROGRAM ARGS...: PROGRAM as USER inside CGROUP (its pid is the script's)
cat >/tmp/in-cgroup <<'EOF'
#!/bin/sh
cg=$1 u=$2
shift 2
echo $$ >"$cg/cgroup.procs" || exit 97
[ "$u" = root ] && exec "$@"
# (-- before the user: busybox su would take the program's options for its own)
exec su -s /bin/sh -c 'exec "$@"' -- "$u" sh "$@"
EOF
chmod 755 /tmp/in-cgroup
# expect_refused WHAT RC WANT ERRFILE: a refusal with its exit status and the module's reason
expect_refused() {
	if [ "$2" = "$3" ] && grep -q 'hint:' "$4"; then
		ok "$1: exit $2: $(grep -v '^lfr record: note' "$4" | head -n 1)"
	else
		bad "$1: exit $2, want $3"
		cat "$4"
	fi
}

# the module's parameter off: every user without CAP_PERFMON is refused
as alice "lfr record -G alice -d 1 -o /tmp/off.jfr" >/tmp/off.out 2>/tmp/off.err
rc=$?
if [ $rc = 4 ] && grep -q 'module parameter unprivileged' /tmp/off.err; then
	ok "parameter off: refused: $(head -n 1 /tmp/off.err)"
else
	bad "parameter off: alice's recording exited $rc"
	cat /tmp/off.err
fi
echo 1 >$P/unprivileged

# every way in the module closes, by hand-built messages; root's session stays invisible
lfr raw --detach -F 99 -a >/tmp/root-session.txt || bad "root could not start a session"
root_sid=$(sed -n 's/^session id=\([0-9]*\).*/\1/p' /tmp/root-session.txt)
as alice "lfr-nl unpriv $CG/alice $root_sid" || bad "lfr-nl unpriv"
lfr-nl privmap || bad "lfr-nl privmap"
lfr-nl netns-portid
case $? in
0) ok "a socket of the owner's port id in another network namespace stops nothing" ;;
2) echo "unpriv: no network namespaces in this kernel: the port id check is not run here" ;;
*) bad "lfr-nl netns-portid" ;;
esac
as alice "lfr status -m" >/tmp/alice-status.txt 2>&1
if grep -q "session=$root_sid " /tmp/alice-status.txt; then
	bad "alice's lfr status shows root's session"
	cat /tmp/alice-status.txt
else
	ok "alice's lfr status does not show root's session: $(head -c 60 /tmp/alice-status.txt)"
fi
lfr stop -S "$root_sid" >/dev/null || bad "root could not stop its session"

# alice records her subtree; six processes run in it, one of them hers (ptrace would let her read
# only that one).  Three are moved in only once they are what they test (their pid files), so
# that none of their samples may be in the file.
cp /usr/bin/undumpable /tmp/suid-undumpable && chmod 4755 /tmp/suid-undumpable
# moved_in PIDFILE: the pid its process wrote once ready, moved into alice/work
moved_in() {
	for i in $(seq 6000); do # liveness bound only
		[ -s "$1" ] && break
		sleep 0.1
	done
	# (a command substitution's shell: its failure is noted in a file, which the end reads)
	echo "$(cat "$1")" >$CG/alice/work/cgroup.procs ||
		echo "cannot move $(cat "$1") into alice/work" >>/tmp/moved-in.failed
	cat "$1"
}
as_bg /tmp/rec.pid "lfr record -F 999 -G alice -o /tmp/alice.jfr" >/tmp/alice.out 2>$share/alice.err &
rec=$!
for i in $(seq 6000); do # liveness bound only
	as alice "lfr status -m" 2>/dev/null | grep -q '^status .*state=running' && break
	kill -0 $rec 2>/dev/null || break
	sleep 0.1
done
rm -f /tmp/a2.pid /tmp/a3.pid /tmp/a4.pid
/tmp/in-cgroup $CG/alice/work alice spin 2 &
j1=$!
as alice "undumpable --pidfile /tmp/a2.pid 4" &
j2=$!
as alice "/tmp/suid-undumpable --dumpable --pidfile /tmp/a3.pid 4" &
j3=$!
undumpable --caps 1000 --pidfile /tmp/a4.pid 4 &
j4=$!
/tmp/in-cgroup $CG/alice/work root spin 2 &
j5=$!
/tmp/in-cgroup $CG/alice/work bob spin 2 &
j6=$!
a1=$j1 r1=$j5 b1=$j6
rm -f /tmp/moved-in.failed
a2=$(moved_in /tmp/a2.pid)
a3=$(moved_in /tmp/a3.pid)
a4=$(moved_in /tmp/a4.pid)
wait $j1 $j2 $j3 $j4 $j5 $j6
[ -s /tmp/moved-in.failed ] && bad "$(cat /tmp/moved-in.failed)"
kill -INT "$(cat /tmp/rec.pid)"
wait $rec
rc=$?
grep -E 'samples|lost' $share/alice.err | head -n 3
[ $rc = 0 ] || { bad "alice's lfr record -G alice exited $rc"; cat $share/alice.err; }
cp /tmp/alice.jfr $share/ 2>/dev/null
for p in "$a1 alice's" "$a2 alice's undumpable" "$a3 the set-uid-root" \
	"$a4 alice's capable (CAP_NET_RAW)" "$r1 root's" "$b1 bob's"; do
	set -- $p
	n=$(lfr report -f collapsed -p "$1" /tmp/alice.jfr 2>/dev/null | wc -l)
	shift
	echo "unpriv: $* process: $n stacks"
	case "$*" in
	"alice's") [ "$n" -gt 0 ] || bad "no sample of alice's process" ;;
	*) [ "$n" = 0 ] || bad "$* process is in alice's recording" ;;
	esac
done
skipped=$(as alice "lfr status -m" | tr ' ' '\n' | sed -n 's/^skip_creds=//p')
if [ "${skipped:-0}" -gt 0 ]; then
	ok "$skipped ticks and events of other users' threads in her cgroup skipped"
else
	bad "skip_creds is '${skipped:-}': the other users' threads were not met"
fi

# what alice may not do, each refused with the module's reason and its exit status
for case in "-G other:4" "-p 1:4" "-a:4" "-G alice -F 5000:4" "-G alice --ring-pages 16384:1"; do
	args=${case%:*}
	as alice "lfr record $args -d 1 -o /tmp/r.jfr" >/tmp/r.out 2>/tmp/r.err
	expect_refused "lfr record $args" $? "${case##*:}" /tmp/r.err
done
grep -q user_max_mb /tmp/r.err || bad "the refusal of --ring-pages 16384 does not name user_max_mb"
# kernel stacks: perf's decision (perf_event_paranoid)
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
echo 2 >/proc/sys/kernel/perf_event_paranoid
as alice "lfr record -k -G alice -d 1 -o /tmp/k.jfr" >/tmp/k.out 2>/tmp/k.err
rc=$?
expect_refused "lfr record -k at perf_event_paranoid 2" $rc 4 /tmp/k.err
grep -q 'perf_event_paranoid is 2' /tmp/k.err || bad "the refusal of -k does not name perf_event_paranoid"
echo 1 >/proc/sys/kernel/perf_event_paranoid
as alice "lfr record -k -G alice -d 1 -o /tmp/k.jfr" >/tmp/k.out 2>/tmp/k.err
rc=$?
[ $rc = 0 ] && ok "lfr record -k at perf_event_paranoid 1: exit 0" ||
	{ bad "lfr record -k at perf_event_paranoid 1 exited $rc"; cat /tmp/k.err; }
echo "$paranoid" >/proc/sys/kernel/perf_event_paranoid

# bob may not map alice's session; alice may
as_bg /tmp/rec.pid "lfr record -G alice -o /tmp/m.jfr" >/dev/null 2>/tmp/m.err &
rec=$!
sid=
for i in $(seq 6000); do # liveness bound only
	sid=$(as alice "lfr status -m" 2>/dev/null | sed -n 's/^status session=\([0-9]*\) state=running.*/\1/p')
	[ -n "$sid" ] && break
	kill -0 $rec 2>/dev/null || { bad "alice's recording ended"; cat /tmp/m.err; break; }
	sleep 0.1
done
as bob "lfr-nl map $sid"
rc=$?
[ $rc = 13 ] && ok "bob cannot map alice's session $sid (EACCES)" || bad "bob's map of $sid exited $rc"
pages=$(as alice "lfr status -m -S $sid" | sed -n 's/^status .* ring_pages=\([0-9]*\).*/\1/p')
as alice "lfr-nl map $sid $pages" || bad "alice cannot map her own session $sid ($pages pages)"
kill -INT "$(cat /tmp/rec.pid)"
wait $rec

# a container of alice's own (user, network, pid and mount namespaces): her cgroup and nothing
# more, its ids those of her pid namespace, so that her recorder names her process's frames
if as alice "unshare -Urnp --fork --mount-proc true" 2>/dev/null; then
	cat >/tmp/container.sh <<'EOF'
#!/bin/sh
spin 600 &
spin=$!
echo $spin >/tmp/ns-spin.pid
lfr record -F 999 -G alice -d 1 -o /tmp/ns.jfr
rc=$?
kill $spin
lfr record -a -d 1 -o /tmp/nsa.jfr 2>/tmp/nsa.err
echo $? >/tmp/nsa.rc
exit $rc
EOF
	/tmp/in-cgroup $CG/alice/work alice unshare -Urnp --fork --mount-proc sh /tmp/container.sh \
		>/tmp/ns.out 2>/tmp/ns.err
	rc=$?
	nspid=$(cat /tmp/ns-spin.pid)
	n=$(lfr report -f collapsed -p "$nspid" /tmp/ns.jfr 2>/dev/null | grep -c ';main')
	[ $rc = 0 ] && [ "$n" -gt 0 ] &&
		ok "in a container: her cgroup, $n stacks through spin's main as pid $nspid of her namespace" ||
		{ bad "in a container: exit $rc, $n stacks through spin's main as pid $nspid"; cat /tmp/ns.err; }
	expect_refused "in a container, lfr record -a" "$(cat /tmp/nsa.rc)" 4 /tmp/nsa.err
else
	echo "unpriv: no user namespaces in this kernel: the container case is not run here"
fi
echo 0 >$P/unprivileged
rmdir $CG/alice/work $CG/alice $CG/other
[ $fail = 0 ] && echo "unpriv: ok"
exit $fail
