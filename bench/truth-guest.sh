# The in-VM half of bench/truth: records `split` (and `split-gcc`) under `perf record` and under
# `lfr record`, alternating, in one boot, and leaves for the host: each run's truth (the workload's
# own output), lfr's .jfr, and perf's leaf and caller counts from `perf script` run in the guest.
#   truth-guest.sh SECONDS RUNS FREQ...
set -u
secs=$1 runs=$2
shift 2
share=${LFR_SHARE:?}
out=$share/truth
rm -rf "$out"
mkdir -p "$out"
pdir=/tmp/perf
cp -r "$share/perf" "$pdir"
perf() { "$pdir/ld-linux-x86-64.so.2" --library-path "$pdir" "$pdir/perf" "$@"; }
echo "truth: kernel $(uname -r), $(nproc) CPUs; lfr.ko $(cat /sys/module/lfr/version), $(perf version 2>&1)"

# perf's samples of split: leaf (first user frame) and the frame after it, counted.
perf_counts() { # DATA OUT
	perf script -i "$1" -F tid,ip,sym,dso 2>/dev/null | awk '
	function flush() {
		if (n) { key = f[1] " " (n > 1 ? f[2] : "-"); c[key]++ }
		n = 0
	}
	/^\t/ { if ($0 ~ /kernel\.kallsyms/) next; f[++n] = $2; next }
	{ flush() }
	END { flush(); for (k in c) print "perfleaf", k, c[k] }' >"$2"
}

i=0
for r in $(seq "$runs"); do
	for hz in "$@"; do
		for prog in split split-gcc; do
			[ "$prog" = split-gcc ] && [ "$hz" != 999 ] && continue
			for prof in perf lfr; do
				i=$((i + 1))
				id=$prof-$prog-$hz-$r
				if [ $prof = perf ]; then
					perf record -e cpu-clock -F "$hz" -g -o /tmp/p.data -- "$prog" "$secs" >"$out/$id.txt" 2>"$out/$id.err"
					perf_counts /tmp/p.data "$out/$id.perf"
					rm -f /tmp/p.data
				else
					lfr record -F "$hz" -q -o "$out/$id.jfr" -- "$prog" "$secs" >"$out/$id.txt" 2>"$out/$id.err"
					lfr status -m | grep '^status ' >"$out/$id.status"
				fi
				echo "truth: run $i: $id: $(grep '^split: ' "$out/$id.txt")"
			done
		done
	done
done
