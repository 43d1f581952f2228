# The in-VM half of bench/unwind: tests/workloads/nofp (gcc -O2 -fomit-frame-pointer: a 40-frame
# chain and qsort's comparator in Debian's libc) without a profiler, under `lfr record` (unwind
# tables, the default), `lfr record --call-graph fp` and `perf record --call-graph dwarf`,
# alternating in one boot; then lfr's walk with and without tables on deepstack 32 (frame pointers,
# so both walks give the same stacks).  One "unwind" line per run for bench/unwind-report.py.
#   unwind-guest.sh SECONDS RUNS FREQ...
set -u
secs=$1 runs=$2
shift 2
share=${LFR_SHARE:?}
pdir=/tmp/perf
cp -r "$share/perf" "$pdir"
perf() { "$pdir/ld-linux-x86-64.so.2" --library-path "$pdir" "$pdir/perf" "$@"; }
echo "unwind: kernel $(uname -r), $(nproc) CPUs; lfr.ko $(cat /sys/module/lfr/version), $(perf version 2>&1)"
chain="clone3;start_thread;chain_main"
for i in $(seq 40 -1 1); do chain="$chain;c$i"; done
chain="$chain;leaf"

# complete/total samples in leaf and cmp of folded stacks (stdin)
complete() {
	awk -v want="$chain" '{
		n = $NF; s = $0; sub(/ [0-9]+$/, "", s)
		if (s ~ /(^|;)leaf$/) { leaf += n; if (s == want || s ~ ("^[^;]*;" want "$")) lok += n }
		if (s ~ /(^|;)cmp$/) { cmp += n; if (s ~ /(^|;)_start;.*;main;[^;]+;(.*;)?cmp$/) cok += n }
	} END { printf "leaf=%d leaf_ok=%d cmp=%d cmp_ok=%d", leaf, lok, cmp, cok }'
}

# perf script's samples as folded stacks, root first (frames print leaf first)
perf_folded() {
	perf script --no-inline -i /tmp/p.data -F ip,sym 2>"$share/perf-script.err" | tee "$share/perf-script.txt" | awk '
	function flush() { if (n) { s = f[n]; for (i = n - 1; i >= 1; i--) s = s ";" f[i]; c[s]++ } n = 0 }
	NF == 0 { flush(); next }
	{ sym = $2; sub(/\+0x[0-9a-f]+$/, "", sym); f[++n] = sym }
	END { flush(); for (s in c) print s, c[s] }'
}

run() { # PROF HZ
	local prof=$1 hz=$2 extra="" rc
	case $prof in
	none) nofp "$secs" >/tmp/w.txt 2>&1; rc=$? ;;
	lfr-cfi|lfr-fp)
		[ $prof = lfr-fp ] && opt="--call-graph fp" || opt=""
		lfr record $opt -F "$hz" -q -o /tmp/l.jfr -- nofp "$secs" >/tmp/w.txt 2>/tmp/l.err
		rc=$?
		extra="bytes=$(stat -c %s /tmp/l.jfr) $(lfr report -f collapsed /tmp/l.jfr | complete)"
		extra="$extra $(lfr status -m | grep '^status ' | tr ' ' '\n' |
			grep -E '^(records_ustack|work_ns|work_count|ticks_committed|lost_missed)=' | tr '\n' ' ')"
		rm -f /tmp/l.jfr ;;
	perf-dwarf)
		perf record -e cpu-clock -F "$hz" --call-graph dwarf -o /tmp/p.data -- nofp "$secs" \
			>/tmp/w.txt 2>/tmp/p.err
		rc=$?
		extra="bytes=$(stat -c %s /tmp/p.data) $(perf_folded | complete)"
		extra="$extra $(perf report -i /tmp/p.data --stats 2>/dev/null |
			awk '$1 == "SAMPLE" && $2 == "events:" && !s { s = $3 } END { printf "perf_samples=%d", s }')"
		rm -f /tmp/p.data ;;
	esac
	echo "unwind prof=$prof hz=$hz run=$run rc=$rc $(grep -h '^work ' /tmp/w.txt | cut -d' ' -f2-) $extra"
}

for run in $(seq "$runs"); do
	run none 0
	for hz in "$@"; do
		case $((run % 3)) in
		0) order="perf-dwarf lfr-cfi lfr-fp" ;;
		1) order="lfr-cfi lfr-fp perf-dwarf" ;;
		*) order="lfr-fp perf-dwarf lfr-cfi" ;;
		esac
		for prof in $order; do run "$prof" "$hz"; done
	done
	# the walk's own cost per stack, with and without tables, on the same frame-pointer stacks
	for opt in cfi fp; do
		lfr record --call-graph $opt -F 999 -q -o /tmp/d.jfr -- deepstack 32 "$secs" 2 >/dev/null 2>&1
		echo "unwind prof=deep32-$opt hz=999 run=$run rc=$? $(lfr status -m | grep '^status ' |
			tr ' ' '\n' | grep -E '^(records_ustack|work_ns|work_count|unwind_frames)=' | tr '\n' ' ')"
		rm -f /tmp/d.jfr
	done
done
echo "unwind: done"
