# Complete stacks without frame pointers: `lfr record -- nofp` (gcc -O2 -fomit-frame-pointer) loads
# the unwind tables of nofp, libc and ld.so before nofp runs, and the walk unwinds every frame from
# them.  At least 99% of the samples in the 40-frame chain's leaf must carry the exact chain
# clone3 <- start_thread <- chain_main <- c40 <- ... <- c1 <- leaf (on arm64 the new thread's entry
# in clone3 has a symbol of its own, thread_start), and at least 99% of those in
# qsort's comparator must read _start <- ... <- main <- libc frames <- cmp.  Each thread's samples
# plus its missed periods (and the session's losses of other reasons) must be its CPU time x
# frequency (2 %).  The same 99 % under `taskset -c 0 nofp` (a program the command execs, whose
# tables are loaded before the command runs too).  The same workload recorded with
# --call-graph fp shows what the frame pointers alone give (reported, not checked).  With
# --cache DIR the tables built are stored, read back by the next recording, and as exact.
set -u
share=${LFR_SHARE:-/tmp}
secs=5
[ "${LFR_KERNEL:-stock}" = debug ] && secs=8
hz=999
fail=0
root=clone3
[ "$(uname -m)" = aarch64 ] && root=thread_start

check() { # NAME: percentages of complete chains; with "strict", fail below 99 %
	lfr report -f collapsed --threads "$share/$1.jfr" >"$share/$1.folded" || {
		echo "unwind: FAILED: lfr report of $1"; fail=1; return; }
	awk -v name="$1" -v strict="$2" -v root="$root" '
	BEGIN {
		want = root ";start_thread;chain_main"
		for (i = 40; i >= 1; i--) want = want ";c" i
		want = want ";leaf"
	}
	{
		n = $NF; stack = $0; sub(/ [0-9]+$/, "", stack)
		thread = stack; sub(/;.*/, "", thread); sub(/^[^;]*;/, "", stack)
		if (stack ~ /(^|;)leaf$/) {
			leaf += n
			if (stack == want) chain += n
			else if (bad_c++ < 3) print "unwind: " name ": chain: " stack
		}
		if (stack ~ /(^|;)cmp$/) {
			cmp += n
			# _start ... main, then only frames outside nofp (libc), then cmp
			if (stack ~ /^_start;.*;main;/ && stack !~ /;main;(.*;)?(c[0-9]+|leaf|chain_main|main);/ &&
			    stack ~ /;main;[^;]+;(.*;)?cmp$/)
				sorted += n
			else if (bad_s++ < 3) print "unwind: " name ": qsort: " stack
		}
	}
	END {
		printf "unwind: %s: %d samples in leaf, %d with the exact 44-frame chain (%.2f%%); " \
		       "%d in cmp, %d with main <- libc <- cmp up to _start (%.2f%%)\n",
		       name, leaf, chain, leaf ? 100 * chain / leaf : 0,
		       cmp, sorted, cmp ? 100 * sorted / cmp : 0
		if (strict != "strict") exit 0
		f = 0
		if (leaf < 200 || cmp < 200) { print "unwind: FAILED: fewer than 200 samples in leaf or cmp"; f = 1 }
		if (chain * 100 < leaf * 99) { print "unwind: FAILED: under 99% exact chains"; f = 1 }
		if (sorted * 100 < cmp * 99) { print "unwind: FAILED: under 99% complete qsort stacks"; f = 1 }
		exit f
	}' "$share/$1.folded" || fail=1
}

lfr record -F $hz -o "$share/cfi.jfr" -- nofp "$secs" >"$share/cfi.txt" 2>"$share/cfi.err"
rc=$?
cat "$share/cfi.txt" "$share/cfi.err"
[ $rc = 0 ] || { echo "unwind: FAILED: lfr record exited $rc"; exit 1; }
grep -q '  unwind tables: [1-9]' "$share/cfi.err" ||
	{ echo "unwind: FAILED: no unwind tables loaded"; fail=1; }
grep -q 'no unwind table for' "$share/cfi.err" && { echo "unwind: FAILED: a table was refused"; fail=1; }
# The walks in mappings described before took neither the mapping lock nor a lookup (their unwind
# tables kept with the ranges, kmod/mm_watch.h): after each thread's first walks, all but the
# walks that met a changed mapping.  Half is far below that and far above 0.
st=$(lfr status -m | grep '^status ')
committed=$(echo "$st" | tr ' ' '\n' | sed -n 's/^samples_committed=//p')
known=$(echo "$st" | tr ' ' '\n' | sed -n 's/^walk_known_maps=//p')
echo "unwind: $known of $committed walks with tables in known mappings"
if [ "${known:-0}" -eq 0 ] || [ $((known * 2)) -lt "${committed:-0}" ]; then
	echo "unwind: FAILED: $known of $committed walks with tables without a lookup"
	fail=1
fi
# Walks of a thread walked just before on its CPU took frames from that walk's memo (frame_walk.h:
# lfr_memo_follow()); the chains checked below are those walks' too.  x86-64 only: arm64's walk
# keeps no memo (its return addresses are not always at CFA - 8).
memo=$(echo "$st" | tr ' ' '
' | sed -n 's/^unwind_memo_frames=//p')
frames=$(echo "$st" | tr ' ' '
' | sed -n 's/^unwind_frames=//p')
echo "unwind: $memo of $frames return addresses by tables taken from the last walk's memo"
if [ "$(uname -m)" = x86_64 ] && [ "${memo:-0}" -eq 0 ]; then
	echo "unwind: FAILED: no frame taken from a memo"
	fail=1
fi
check cfi strict

# samples + missed periods per thread against the CPU time the workload measured.  Losses of other
# reasons (throttled: lfr's budget on a CPU; exit) are counted per session, not per thread: a
# thread's count may fall short by at most those, and the threads' sum must match with them.
awk -v hz=$hz -v out="$share/cfi.txt" '
BEGIN {
	while ((getline line < out) > 0)
		if (line ~ /^cputime tid=/) {
			split(line, kv, "[ =]"); cpu[kv[3]] = kv[5]; name[kv[3]] = kv[7]
		}
}
$1 == "tid" && ($2 in cpu) { got[$2] = $4 + $6 }
$1 == "lost" && $2 != "missed" { other += $NF }
END {
	f = 0; n = 0
	for (t in cpu) {
		want = cpu[t] / 1e9 * hz; n++; all_got += got[t]; all_want += want
		printf "unwind: identity tid %s (%s): samples+missed %d, CPU time %.1f ms x %d Hz = %.1f (%+.2f%%)\n",
		       t, name[t], got[t], cpu[t] / 1e6, hz, want, want ? 100 * (got[t] - want) / want : 0
		if (got[t] + other < want * 0.98 - 2 || got[t] > want * 1.02 + 2) {
			print "unwind: FAILED: tid " t ": samples + missed periods are not its CPU time x frequency"; f = 1
		}
	}
	printf "unwind: identity of both: samples+missed %d + other losses %d = %d, CPU time x %d Hz = %.1f (%+.2f%%)\n",
	       all_got, other, all_got + other, hz, all_want,
	       all_want ? 100 * (all_got + other - all_want) / all_want : 0
	if (all_got + other < all_want * 0.98 - 2 || all_got + other > all_want * 1.02 + 2) {
		print "unwind: FAILED: the threads samples and losses are not their CPU time x frequency"; f = 1
	}
	if (n != 2) { print "unwind: FAILED: the workload gave no CPU times"; f = 1 }
	exit f
}' "$share/cfi.err" || fail=1

# The program a wrapper execs: `lfr record -- taskset -c 0 nofp` loads the tables of nofp (an
# argument that names a program) and its libraries before taskset runs, so that nofp's stacks are
# as complete from its first sample (else they came with nofp's first MMAP records, and the
# loader built libc's table beside the busy program: a second or more of frame-pointer stacks).
lfr record -F $hz -o "$share/wrapped.jfr" -- taskset -c 0 nofp "$secs" >"$share/wrapped.txt" \
	2>"$share/wrapped.err" || { echo "unwind: FAILED: lfr record -- taskset ... nofp"; cat "$share/wrapped.err"; fail=1; }
grep 'unwind tables' "$share/wrapped.err"
check wrapped strict

# Tables kept by build-id (--cache DIR, as lfr.service keeps them in /var/cache/lfr/tables): the first
# recording builds and stores every unwind table and symbol table, the next reads every one of
# those back (and stores those of objects the first did not meet), and its chains are as exact.
# A directory others may write is refused before anything is recorded.
uc=/tmp/lfr-cache
rm -rf "$uc"
lfr record --cache "$uc" -F $hz -o "$share/stored.jfr" -- nofp 1 >/dev/null 2>"$share/stored.err" ||
	{ echo "unwind: FAILED: lfr record --cache (storing)"; cat "$share/stored.err"; fail=1; }
grep 'cache ' "$share/stored.err"
line=$(grep "  cache $uc: " "$share/stored.err")
# (an object of two files with one build-id, as arm64's ld.so in /lib and /usr/lib, is read back
# from what its first file stored: the first recording may read some too)
u_st=$(echo "$line" | sed -n 's/.*unwind tables [0-9]* read, \([0-9]*\) stored;.*/\1/p')
s_st=$(echo "$line" | sed -n 's/.*symbol tables [0-9]* read, \([0-9]*\) stored$/\1/p')
n_u=$(ls "$uc" | grep -c '^[0-9a-f]*\.unwind$')
n_s=$(ls "$uc" | grep -c '^[0-9a-f]*\.syms$')
echo "unwind: cache: ${u_st:-none} unwind tables stored ($n_u files), ${s_st:-none} symbol tables ($n_s files)"
if [ -z "$u_st" ] || [ "$u_st" -lt 2 ] || [ "$n_u" != "$u_st" ] || [ -z "$s_st" ] || [ "$s_st" -lt 2 ] ||
	[ "$n_s" != "$s_st" ]; then
	echo "unwind: FAILED: the first recording did not store every table it built"; fail=1
fi
lfr record --cache "$uc" -F $hz -o "$share/cached.jfr" -- nofp "$secs" >/dev/null 2>"$share/cached.err" ||
	{ echo "unwind: FAILED: lfr record --cache (reading)"; cat "$share/cached.err"; fail=1; }
grep 'cache \|unwind tables' "$share/cached.err"
# every table the cache holds is read back when needed: the second recording stores only the
# tables of objects the first did not meet (new files), and reads the rest (at least nofp's and
# libc's).  Which objects a recording meets is chance at the edges: a sample in lfr's own child
# before its exec, or in ld.so at the start, stores a table the next run may never ask for.
line=$(grep "  cache $uc: " "$share/cached.err")
u_rd=$(echo "$line" | sed -n 's/.*unwind tables \([0-9]*\) read,.*/\1/p')
s_rd=$(echo "$line" | sed -n 's/.*symbol tables \([0-9]*\) read,.*/\1/p')
u_st2=$(echo "$line" | sed -n 's/.*unwind tables [0-9]* read, \([0-9]*\) stored;.*/\1/p')
s_st2=$(echo "$line" | sed -n 's/.*symbol tables [0-9]* read, \([0-9]*\) stored$/\1/p')
n_u2=$(ls "$uc" | grep -c '^[0-9a-f]*\.unwind$')
n_s2=$(ls "$uc" | grep -c '^[0-9a-f]*\.syms$')
echo "unwind: cache again: ${u_rd:-no} unwind tables read, ${u_st2:-no} stored ($n_u -> $n_u2 files); ${s_rd:-no} symbol tables read, ${s_st2:-no} stored ($n_s -> $n_s2 files)"
if [ "${u_rd:-0}" -lt 2 ] || [ "${s_rd:-0}" -lt 2 ] || [ "${u_st2:-x}" != $((n_u2 - n_u)) ] ||
	[ "${s_st2:-x}" != $((n_s2 - n_s)) ]; then
	echo "unwind: FAILED: the second recording built again tables the cache held, or read fewer than nofp's and libc's"
	fail=1
fi
grep -q 'warning: --cache' "$share/cached.err" && { echo "unwind: FAILED: a cache file refused"; fail=1; }
check cached strict
chmod 777 "$uc"
lfr record --cache "$uc" -o "$share/refused.jfr" -- true >/dev/null 2>"$share/refused.err"
rc=$?
cat "$share/refused.err"
if [ $rc != 4 ] || ! grep -q 'writable by others' "$share/refused.err" || [ -e "$share/refused.jfr" ]; then
	echo "unwind: FAILED: a cache directory others may write was not refused (exit $rc)"; fail=1
fi
rm -rf "$uc"

lfr record --call-graph fp -F $hz -o "$share/fp.jfr" -- nofp 2 >"$share/fp.txt" 2>"$share/fp.err" ||
	{ echo "unwind: FAILED: lfr record --call-graph fp"; cat "$share/fp.err"; fail=1; }
grep -q 'unwind tables' "$share/fp.err" && { echo "unwind: FAILED: tables loaded with --call-graph fp"; fail=1; }
check fp report

# Deep stacks: a walk in known ranges runs with interrupts off (the commit in place in the ring)
# for at most 128 frames and 128 steps of row searches, then goes on with interrupts on into a
# buffer (walk_resumed).  `deepstack 300` (a recursion of 298 descend frames under main) recorded
# with -g 512, by the unwind tables and by frame pointers: every sample in leaf has the whole
# chain, as a walk without the bound gives it, and walks went on past the bound.
d=300
lfr record -F $hz -g 512 -o "$share/deep.jfr" -- deepstack $d 2 >/dev/null 2>"$share/deep.err" ||
	{ echo "unwind: FAILED: lfr record of deepstack"; cat "$share/deep.err"; fail=1; }
resumed=$(lfr status -m | grep '^status ' | tr ' ' '\n' | sed -n 's/^walk_resumed=//p')
lfr report -f collapsed "$share/deep.jfr" >"$share/deep.folded" || { echo "unwind: FAILED: lfr report of deep"; fail=1; }
awk -v d=$d -v resumed="${resumed:-0}" '
{
	n = $NF; stack = $0; sub(/ [0-9]+$/, "", stack)
	if (stack !~ /;leaf$/) next
	leaf += n
	k = gsub(/;descend/, ";descend", stack)
	if (k == d - 2 && stack ~ /^_start;.*;main;descend/) exact += n
	else if (bad++ < 3) print "unwind: deep: " k " descend frames: " substr(stack, 1, 120) "..."
}
END {
	printf "unwind: deep (tables): %d samples in leaf, %d with main and all %d descend frames up to _start; %d walks went on past the bound\n",
	       leaf, exact, d - 2, resumed
	if (leaf < 100 || exact < leaf) { print "unwind: FAILED: a deep chain by the tables is not whole"; exit 1 }
	if (resumed < 1) { print "unwind: FAILED: no walk went on past its bound"; exit 1 }
}' "$share/deep.folded" || fail=1
lfr raw -F $hz -g 512 -o "$share/deep-fp.txt" -- deepstack $d 2 >/dev/null ||
	{ echo "unwind: FAILED: lfr raw of deepstack (a check failed?)"; fail=1; }
grep '^check ' "$share/deep-fp.txt"
resumed=$(grep '^status ' "$share/deep-fp.txt" | tr ' ' '\n' | sed -n 's/^walk_resumed=//p')
# by frame pointers: leaf, its caller descend(0), then d - 3 returns into descend from descend:
# one call site, d - 3 times in a row, nothing lost or doubled where a walk went on
awk -v d=$d -v resumed="${resumed:-0}" '
$1 == "sample" {
	for (i = 2; i <= NF; i++) if ($i ~ /^user=/) { u = substr($i, 6); break }
	n = split(u, pc, ",")
	if (n < 100) next
	deep++
	run = 1
	for (i = 4; i <= n && pc[i] == pc[3]; i++) run++
	if (run == d - 3) exact++
	else if (bad++ < 3) print "unwind: deep (fp): " run " returns into the recursion in a chain of " n " pcs"
}
END {
	printf "unwind: deep (frame pointers): %d samples past 100 frames, %d with all %d returns into the recursion; %d walks went on past the bound\n",
	       deep, exact, d - 3, resumed
	# (a sample while the recursion is built or left at the end has fewer: 1 % for those)
	if (deep < 50 || exact * 100 < deep * 99) { print "unwind: FAILED: deep chains by frame pointers are not whole"; exit 1 }
	if (resumed < 1) { print "unwind: FAILED: no frame-pointer walk went on past its bound"; exit 1 }
}' "$share/deep-fp.txt" || fail=1
[ $fail = 0 ] && echo "unwind: ok"
exit $fail
