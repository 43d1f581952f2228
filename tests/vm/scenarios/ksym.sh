# Kernel names asked of the module (LFR_CMD_KSYM), a function at a time, instead of read from all
# of /proc/kallsyms:
# - lfr-nl ksym: the command against /proc/kallsyms, its refusals (bad requests, no CAP_SYSLOG,
#   kptr_restrict 2), with the independent libnl client;
# - lfr record --off-cpu of `sleep` with /proc/kallsyms hidden (/dev/null bind-mounted over it in
#   a mount namespace of its own): its kernel frames are named all the same, by the module;
# - the same without CAP_SYSLOG (lfr-nl nosyslog), /proc/kallsyms readable (kernel.perf_event_paranoid 1 shows its
#   addresses to every user): the module refuses, and lfr names from /proc/kallsyms;
# - without CAP_SYSLOG and with /proc/kallsyms hidden: unnamed, which shows the checks can fail.
set -u
fail=0
lfr-nl ksym || fail=1

# record FILE HIDE [lfr-nl nosyslog]: lfr record --off-cpu of a sleep, /proc/kallsyms hidden
# (HIDE 1) or not
record() {
	local out=$1 hide=$2
	shift 2
	unshare -m sh -c "mount --make-rprivate / 2>/dev/null; { [ $hide = 0 ] || mount --bind /dev/null /proc/kallsyms; } &&
		exec $* lfr record -q --off-cpu -F 99 -o $out -- sleep 0.3" ||
		{ echo "ksym: FAILED: lfr record ($out)"; fail=1; }
	lfr report -f collapsed --off-cpu "$out" >"$out.txt" || { echo "ksym: FAILED: lfr report $out"; fail=1; }
}
# named FILE: do_nanosleep and schedule named, no kernel frame left as an address
named() {
	local unnamed
	unnamed=$(tr ';' '\n' <"$1.txt" | grep -c '^0xffff')
	if grep -q 'do_nanosleep' "$1.txt" && grep -q 'schedule' "$1.txt" && [ "$unnamed" = 0 ]; then
		echo "ksym: $2: kernel frames named ($(tr ';' '\n' <"$1.txt" | grep -m1 -o 'do_nanosleep.*' | cut -c1-40))"
	else
		echo "ksym: FAILED: $2: kernel frames not named ($unnamed addresses)"; head -3 "$1.txt"; fail=1
	fi
}
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
record /tmp/ksym-hidden.jfr 1
named /tmp/ksym-hidden.jfr "/proc/kallsyms hidden, named by the module"
echo 1 >/proc/sys/kernel/perf_event_paranoid
record /tmp/ksym-nosyslog.jfr 0 lfr-nl nosyslog
named /tmp/ksym-nosyslog.jfr "no CAP_SYSLOG, named from /proc/kallsyms"
record /tmp/ksym-none.jfr 1 lfr-nl nosyslog
echo "$paranoid" >/proc/sys/kernel/perf_event_paranoid
n=$(tr ';' '\n' </tmp/ksym-none.jfr.txt | grep -c '^0xffff')
if [ "$n" -gt 0 ] && ! grep -q 'do_nanosleep' /tmp/ksym-none.jfr.txt; then
	echo "ksym: no CAP_SYSLOG and /proc/kallsyms hidden: $n kernel frames unnamed, as they must be"
else
	echo "ksym: FAILED: no CAP_SYSLOG and /proc/kallsyms hidden, yet kernel frames named ($n unnamed)"; fail=1
fi
[ $fail = 0 ] && echo "ksym: ok"
exit $fail
