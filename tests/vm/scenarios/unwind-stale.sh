# A file written in place after its unwind table was added: `nofp` runs with a copy of libc
# (LD_LIBRARY_PATH, which lfr record follows too: it adds the copy's table before nofp runs, as
# the unwind scenario's); once its walks use it (a handshake on the
# session's counters), the copy is rewritten in place with its own bytes (dd conv=notrunc): its
# ctime changes, its inode and mapping do not, so neither the mm's generation nor the table's
# key moves.  The table no longer describes the file: the module must stop using it (it is
# counted in unwind_stale), also in the walks that found it with their ranges before and took no
# lookup.  unwind-stale.host checks the recording: before the change the sorting thread's samples
# are unwound through libc up to _start, after it (the change's time, with a margin for walks
# queued before it) they are not; nothing of that is a rate or a duration.
set -u
share=${LFR_SHARE:-/tmp}
fail=0
field() { tr ' ' '\n' | sed -n "s/^$1=//p" | head -n 1; }
samples() { lfr status -m | grep '^status ' | field samples_committed; }
libc=$(grep -m 1 -o '/[^ ]*/libc\.so\.6' /proc/self/maps 2>/dev/null)
[ -n "$libc" ] || libc=$(ls /lib/x86_64-linux-gnu/libc.so.6 /lib64/libc.so.6 2>/dev/null | head -n 1)
[ -n "$libc" ] || { echo "unwind-stale: FAILED: no libc.so.6 in the guest"; exit 1; }
mkdir -p /tmp/lc
cp "$libc" /tmp/lc/libc.so.6
LD_LIBRARY_PATH=/tmp/lc lfr record -F 999 -o "$share/stale.jfr" -- nofp 3600 \
	>"$share/nofp.txt" 2>"$share/record.err" &
rec=$!
# until N more samples were committed (the walks went on), or the recording ended
wait_samples() {
	local want=$1 i n
	for i in $(seq 6000); do # liveness bound only
		n=$(samples)
		[ "${n:-0}" -ge "$want" ] && return 0
		kill -0 $rec 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}
wait_samples 2000 || { echo "unwind-stale: FAILED: no samples before the change"; fail=1; }
grep -q '/tmp/lc/libc.so.6' /proc/$(sed -n 's/^nofp pid=//p' "$share/nofp.txt")/maps ||
	{ echo "unwind-stale: FAILED: nofp does not run the copy of libc"; fail=1; }
s0=$(samples)
t0=$(cut -d' ' -f1 /proc/uptime)
dd if=/tmp/lc/libc.so.6 of=/tmp/lc/libc.so.6 bs=65536 conv=notrunc 2>/dev/null ||
	{ echo "unwind-stale: FAILED: the rewrite"; fail=1; }
t1=$(cut -d' ' -f1 /proc/uptime)
wait_samples $((s0 + 2000)) || { echo "unwind-stale: FAILED: no samples after the change"; fail=1; }
kill "$(sed -n 's/^nofp pid=//p' "$share/nofp.txt")"
wait $rec
grep -E 'unwind tables|samples' "$share/record.err"
st=$(lfr status -m | grep '^status ')
stale=$(echo "$st" | field unwind_stale)
echo "unwind-stale: libc rewritten in place between uptime $t0 and $t1 s, after $s0 samples;" \
	"unwind_stale=$stale unwind_tables=$(echo "$st" | field unwind_tables)"
echo "change $t0 $t1" >"$share/change.txt"
[ "${stale:-0}" -ge 1 ] || { echo "unwind-stale: FAILED: no table was found stale"; fail=1; }
exit $fail
