# The in-VM half of bench/hostcost: deepstack 32 alone, under perf and under lfr, alternating.
#   hostcost-guest.sh SECONDS RUNS HZ
set -u
secs=$1 runs=$2 hz=$3
share=${LFR_SHARE:?}
pdir=/tmp/perf
cp -r "$share/perf" "$pdir"
perf() { "$pdir/ld-linux-x86-64.so.2" --library-path "$pdir" "$pdir/perf" "$@"; }
loc() { awk '/LOC:/ { n = 0; for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) n += $i; print n }' /proc/interrupts; }

run() { # CONFIG ROUND
	local a b
	a=$(loc)
	echo "hostcost start $1 $2"
	case $1 in
	none) deepstack 32 "$secs" 2 >/tmp/w.txt 2>&1 ;;
	perf) perf record -q -e cpu-clock -F "$hz" -g -o /tmp/p.data -- deepstack 32 "$secs" 2 >/tmp/w.txt 2>&1 ;;
	lfr) lfr record -q -F "$hz" -o /tmp/l.jfr -- deepstack 32 "$secs" 2 >/tmp/w.txt 2>&1 ;;
	esac
	b=$(loc)
	echo "hostcost cfg=$1 run=$2 loc=$((b - a)) $(grep -h '^deepstack ' /tmp/w.txt | cut -d' ' -f2-)"
	rm -f /tmp/p.data /tmp/l.jfr
	sleep 2
}

for r in $(seq "$runs"); do
	case $((r % 3)) in
	1) order="none perf lfr" ;;
	2) order="perf lfr none" ;;
	*) order="lfr none perf" ;;
	esac
	for c in $order; do run "$c" "$r"; done
done
echo "hostcost: done"
