# arm64: a 32-bit (AArch32) task is not walked (kmod/arch/arm64/arch_regs.h): every tick of it is
# lost for the reason `compat`, counted, and the session's identity still holds.  Debian's busybox
# for armhf (busybox-armhf, a static AArch32 program) spins until it has had 2 s of CPU time, then
# prints that time; lfr raw samples it at 999 Hz.  Its ticks lost as compat, with those of its
# other reasons (missed periods, the exec), must be its CPU time x 999 within 3 % (its CPU time is
# read in clock ticks of 10 ms), and none may be committed after its exec.  lfr record names the
# reason in its summary.
set -u
share=${LFR_SHARE:-/tmp}
fail=0
field() { tr ' ' '\n' | sed -n "s/^$1=//p" | head -n 1; }
# shell builtins only: a fork would be a process of its own
spin='while :; do read -r l </proc/$$/stat; set -- $l; [ $((${14} + ${15})) -ge $1 ] && break; done'
spin=${spin/\$1/200}
lfr raw -F 999 -o "$share/dump.txt" -- busybox-armhf sh -c "$spin; read -r l </proc/\$\$/stat; set -- \$l; echo cputime_ticks=\$((\${14} + \${15}))" >"$share/spin.txt"
rc=$?
cat "$share/spin.txt"
grep -E '^(check|summary) ' "$share/dump.txt"
st=$(grep '^status ' "$share/dump.txt")
echo "$st" | tr ' ' '\n' | grep -E '^(ticks_matched|samples_committed|lost_compat|lost_missed|lost_exec)=' | tr '\n' ' '
echo
[ $rc = 0 ] || { echo "compat32: FAILED: lfr raw exited $rc"; fail=1; }
ticks=$(sed -n 's/^cputime_ticks=//p' "$share/spin.txt")
compat=$(echo "$st" | field lost_compat)
missed=$(echo "$st" | field lost_missed)
execl=$(echo "$st" | field lost_exec)
committed=$(echo "$st" | field samples_committed)
# the samples committed are the child's before its exec (lfr raw's own arm64 code)
after=$(awk '$1 == "sample" && / flags=[^ ]*compat/' "$share/dump.txt" | wc -l)
echo "compat32: $compat ticks lost as compat, $missed missed, $execl at the exec, $committed committed ($after of them 32-bit); CPU time ${ticks:-?} x 10 ms"
if [ -z "$ticks" ] || [ "${compat:-0}" -eq 0 ] || [ "$after" -ne 0 ]; then
	echo "compat32: FAILED: no ticks lost as compat, or a 32-bit stack committed"
	fail=1
else
	awk -v c="$compat" -v m="$missed" -v e="$execl" -v t="$ticks" 'BEGIN {
		want = t / 100 * 999; got = c + m + e; d = (got - want) / want
		printf "compat32: identity: lost %d, CPU time x 999 Hz = %.1f (%+.2f%%)\n", got, want, 100 * d
		exit (d < -0.03 || d > 0.03)
	}' || { echo "compat32: FAILED: the losses are not its CPU time x frequency"; fail=1; }
fi
lfr record -F 999 -o "$share/compat.jfr" -- busybox-armhf sh -c "${spin/200/50}" >/dev/null 2>"$share/record.err"
cat "$share/record.err" | grep -E 'samples|lost'
grep -Eq '^  lost compat +[1-9]' "$share/record.err" || { echo "compat32: FAILED: lfr record does not name the compat losses"; fail=1; }
[ $fail = 0 ] && echo "compat32: ok"
exit $fail
