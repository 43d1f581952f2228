# The in-VM half of bench/cost: two-thread workloads at a fixed user depth, run without a profiler,
# under `perf record` and under `lfr record`, alternating (the order rotates from run to run), in
# one boot.  One "cost" line per run for bench/cost-report.py.
#   cost-guest.sh SECONDS RUNS "WORKLOADS" "LFR_OPTIONS" "PERF_OPTIONS" FREQ...
#   (LFR_OPTIONS "-": none; PERF_OPTIONS: perf's call-graph option, -g or --call-graph dwarf)
# A workload is deepDEPTHxTHREADS or chainDEPTHxTHREADS (tests/workloads/deepstack.c: recursion
# through one function, or with -c a chain of different functions).  perf counts its samples in the
# guest (`perf report --stats`); lfr's figures come from `lfr status -m` after the recording.
set -u
secs=$1 runs=$2 workloads=$3 lfr_opts=$4 perf_opts=$5
shift 5
[ "$lfr_opts" = - ] && lfr_opts=""
share=${LFR_SHARE:?}
out=$share/cost
rm -rf "$out"
mkdir -p "$out"
pdir=/tmp/perf
cp -r "$share/perf" "$pdir"
# the loader of the guest's machine (x86-64, or arm64: bench/guest-perf DIR arm64)
ld=ld-linux-x86-64.so.2
[ "$(uname -m)" = aarch64 ] && ld=ld-linux-aarch64.so.1
perf() { "$pdir/$ld" --library-path "$pdir" "$pdir/perf" "$@"; }
echo "cost: kernel $(uname -r) ($(uname -m)), $(nproc) CPUs; lfr.ko $(cat /sys/module/lfr/version), $(perf version 2>&1) ($perf_opts); lfr record options: ${lfr_opts:-none}"

run() { # ID WORKLOAD PROFILER FREQ
	local id=$1 wl=$2 prof=$3 hz=$4 d t st="" ps="" rc shape=""
	d=${wl#deep}
	case $wl in chain*) d=${wl#chain} shape=-c ;; esac
	t=${d#*x}
	d=${d%x*}
	case $prof in
	none)
		deepstack $shape "$d" "$secs" "$t" >"$out/$id.txt" 2>"$out/$id.err"
		rc=$? ;;
	perf)
		# shellcheck disable=SC2086 # the options are words
		perf record -e cpu-clock -F "$hz" $perf_opts -o /tmp/p.data -- deepstack $shape "$d" "$secs" "$t" \
			>"$out/$id.txt" 2>"$out/$id.err"
		rc=$?
		ps=$(perf report -i /tmp/p.data --stats 2>/dev/null | awk '
			$1 == "SAMPLE" && $2 == "events:" && s == "" { s = $3 }
			$1 == "LOST_SAMPLES" { ls = $3 } $1 == "LOST" { l = $3 }
			END { printf "perf_samples=%d perf_lost=%d", s, l + ls }')
		ps="$ps bytes=$(stat -c %s /tmp/p.data)"
		rm -f /tmp/p.data ;;
	lfr)
		# shellcheck disable=SC2086 # the options are words
		lfr record -F "$hz" $lfr_opts -q -o /tmp/l.jfr -- deepstack $shape "$d" "$secs" "$t" \
			>"$out/$id.txt" 2>"$out/$id.err"
		rc=$?
		st=$(lfr status -m | grep '^status ')
		ps="bytes=$(stat -c %s /tmp/l.jfr)"
		rm -f /tmp/l.jfr ;;
	esac
	echo "cost id=$id wl=$wl prof=$prof hz=$hz run=$run rc=$rc $ps | $(grep -h '^deepstack ' "$out/$id.txt") | $st"
}

for run in $(seq "$runs"); do
	for wl in $workloads; do
		run "$wl-none-$run" "$wl" none 0
		for hz in "$@"; do
			# alternate which profiler goes first, so that neither always follows the other
			if [ $((run % 2)) = 1 ]; then order="perf lfr"; else order="lfr perf"; fi
			for prof in $order; do run "$wl-$prof-$hz-$run" "$wl" "$prof" "$hz"; done
		done
	done
done
echo "cost: done"
