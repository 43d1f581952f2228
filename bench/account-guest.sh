# The in-VM half of bench/account: `deepstack 40 SECS 2` alone, under `lfr record -F HZ`, under
# `lfr record -F HZ --call-graph fp`, under `perf record -e cpu-clock -F HZ -g` and beside
# bench/nulltick (a timer interrupt at HZ whose handler does nothing: $LFR_SHARE/nulltick.ko), each for WARM
# and for SECS seconds without a profiler of the guest (three rounds of all; the slowdown: the
# difference of the two lengths is a steady window with the start-up left out), then each for SECS seconds under
# `perf record -a -e cpu-clock -F PHZ -g --kernel-callchains` of the whole guest (the parts).
#   account-guest.sh WARM SECS HZ PHZ [WORKLOAD]
# WORKLOAD: deep (`deepstack 40`, the default), chain (`deepstack -c 40`: 40 different functions) or
# nofp (`deepstack-nofp 40`, built without frame pointers: lfr walks by its unwind tables, perf
# copies the stack for `--call-graph dwarf`, and there is no `--call-graph fp` run).
# One "account" line per run on stdout; the profiles and the guest's kallsyms in $LFR_SHARE/account/.
set -u
warm=$1 secs=$2 hz=$3 phz=$4 workload=${5:-deep}
prog=deepstack shape="" perf_cg=-g configs="lfr lfrfp perf"
case $workload in
deep) ;;
chain) shape=-c ;;
nofp) prog=deepstack-nofp perf_cg="--call-graph dwarf" configs="lfr perf" ;;
*) echo "account: unknown workload $workload"; exit 2 ;;
esac
share=${LFR_SHARE:?}
out=$share/account
rm -rf "$out"
mkdir -p "$out"
pdir=/tmp/perf
cp -r "$share/perf" "$pdir"
# Two perf processes told apart by their names: the guest's profiler runs as the loader
# (comm ld-linux-x86-64), the perf under measure as a copy of it named perf-rec.
cp "$pdir/ld-linux-x86-64.so.2" "$pdir/perf-rec"
prof() { "$pdir/ld-linux-x86-64.so.2" --library-path "$pdir" "$pdir/perf" "$@"; }
# an executable, not a function: the profiler runs it as its command
printf '#!/bin/sh\nexec %s/perf-rec --library-path %s %s/perf "$@"\n' "$pdir" "$pdir" "$pdir" >"$pdir/perfrec"
chmod +x "$pdir/perfrec"
prof --version >/dev/null
# khugepaged wakes every 10 s and, in one boot, collapsed pages into huge ones during a profiled run
# of lfr: 2 MiB cleared a page, 2 M instructions under -icount, about 600 per stack, in whichever
# run it lands.  Not lfr's cost, and the main spread between runs: transparent huge pages off.
echo never >/sys/kernel/mm/transparent_hugepage/enabled
echo never >/sys/kernel/mm/transparent_hugepage/defrag
echo "account: kernel $(uname -r), $(nproc) CPU, THP $(cat /sys/kernel/mm/transparent_hugepage/enabled); lfr.ko $(cat /sys/module/lfr/version); $(prof version 2>&1)"

run() { # CONFIG SECONDS PROFILED
	local cfg=$1 s=$2 p=$3 id=$1-$2-$3 pre="" st="" ps="" rc nrc=0
	[ "$p" = 1 ] && pre="prof record -a -e cpu-clock -F $phz -g --kernel-callchains -o /tmp/prof-$cfg.data --"
	case $cfg in
	none) $pre $prog $shape 40 "$s" 2 >"$out/$id.txt" 2>"$out/$id.err" ;;
	lfr) $pre lfr record -F "$hz" -q -o /tmp/x.jfr -- $prog $shape 40 "$s" 2 >"$out/$id.txt" 2>"$out/$id.err" ;;
	lfrfp) $pre lfr record -F "$hz" --call-graph fp -q -o /tmp/x.jfr -- $prog $shape 40 "$s" 2 \
		>"$out/$id.txt" 2>"$out/$id.err" ;;
	perf) $pre "$pdir/perfrec" record -e cpu-clock -F "$hz" $perf_cg -o /tmp/p.data -- $prog $shape 40 "$s" 2 \
		>"$out/$id.txt" 2>"$out/$id.err" ;;
	null) insmod "$share/nulltick.ko" period_ns=$((1000000000 / hz)) || echo "account: insmod nulltick.ko failed"
		$prog $shape 40 "$s" 2 >"$out/$id.txt" 2>"$out/$id.err"
		nrc=$?
		ps="null_ticks=$(cat /sys/module/nulltick/parameters/ticks 2>/dev/null || echo 0)"
		rmmod nulltick ;;
	esac
	rc=$?
	[ "$cfg" = null ] && rc=$nrc
	case $cfg in
	lfr*) st=$(lfr status -m | grep '^status ') ;;
	perf) ps=$(prof report -i /tmp/p.data --stats 2>/dev/null | awk '
		$1 == "SAMPLE" && $2 == "events:" && s == "" { s = $3 }
		END { printf "perf_samples=%d", s }') ;;
	esac
	rm -f /tmp/x.jfr /tmp/p.data
	echo "account cfg=$cfg secs=$s profiled=$p rc=$rc $ps | $(grep -h '^deepstack ' "$out/$id.txt") | $st"
}

# Three rounds of every configuration at each length, alone and the null timer among them: the
# report takes the median of each one's three windows (lfr's timer jitter and where its start-up
# ends move a single window by a few per cent).
for _ in 1 2 3; do
	for cfg in none $configs null; do
		run $cfg "$warm" 0
		run $cfg "$secs" 0
	done
done
for cfg in none $configs; do
	run $cfg "$secs" 1
done
# The profiles are read on the host (bench/account: perf script with the guest's kallsyms and the
# initramfs as its file system root): perf script in the emulated guest took two minutes a pass.
for cfg in none $configs; do
	cp /tmp/prof-$cfg.data "$out/prof-$cfg.data" && rm -f /tmp/prof-$cfg.data
done
cat /proc/kallsyms >"$out/kallsyms"
echo "account: done"
