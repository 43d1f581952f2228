# The in-VM half of bench/run: runs each workload without a profiler, under `perf record` and
# under `lfr record`, and prints one "result" line per run (bench/report turns them into tables).
#   guest.sh quick|full
# Needs: $LFR_SHARE/perf/ (perf, its shared libraries and the loader, put there by bench/run) and
# /lib/lfr/cpuof.
# Recordings go to /tmp (tmpfs) so that the share's 9p file system is not what is measured; perf's
# files are then moved to the share for `perf report --stats` on the host.
set -u
mode=${1:-full}
share=${LFR_SHARE:?}
out=$share/runs
rm -rf "$out"
mkdir -p "$out"
# perf and its libraries run from tmpfs: paged in from the 9p share they cost perf seconds of
# system time per run.
pdir=/tmp/perf
cp -r "$share/perf" "$pdir"
perf() { "$pdir/ld-linux-x86-64.so.2" --library-path "$pdir" "$pdir/perf" "$@"; }

if [ "$mode" = quick ]; then
	secs=1
	freqs="999"
	workloads="deep32"
else
	secs=4
	freqs="99 999 4999"
	workloads="deep8 deep32 deep128 syscalls threads500"
fi

wl_cmd() {
	case "$1" in
	deep8) echo "deepstack 8 $secs 1" ;;
	deep32) echo "deepstack 32 $secs 1" ;;
	deep128) echo "deepstack 128 $secs 1" ;;
	syscalls) echo "syscalls busy $secs 2" ;;
	threads500) echo "manythreads 500 $secs" ;;
	esac
}

echo "bench: kernel $(uname -r), $(nproc) CPUs, $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n1)"
echo "bench: lfr.ko $(cat /sys/module/lfr/version), $(perf version 2>&1)"
dmesg -c >/dev/null

n=0
# run ID WORKLOAD PROFILER FREQ
run() {
	id=$1 wl=$2 prof=$3 freq=$4
	cmd=$(wl_cmd "$wl")
	n=$((n + 1))
	f=""
	case "$prof" in
	none)
		/lib/lfr/cpuof $cmd >"$out/$id.out" 2>"$out/$id.err" ;;
	perf)
		f=/tmp/$id.data
		/lib/lfr/cpuof -c "${cmd%% *}" "$pdir/ld-linux-x86-64.so.2" --library-path "$pdir" "$pdir/perf" record -e cpu-clock -F "$freq" -g -o "$f" -- $cmd >"$out/$id.out" 2>"$out/$id.err" ;;
	lfr)
		f=/tmp/$id.jfr
		/lib/lfr/cpuof -c "${cmd%% *}" lfr record -F "$freq" -k -q -o "$f" -- $cmd >"$out/$id.out" 2>"$out/$id.err"
		lfr status -m | grep '^status ' >"$out/$id.status" ;;
	esac
	rc=$?
	bytes=0
	if [ -n "$f" ] && [ -f "$f" ]; then
		bytes=$(stat -c %s "$f")
		if [ "$prof" = perf ]; then mv "$f" "$out/$id.data"; else rm -f "$f"; fi
	fi
	dmesg -c >"$out/$id.dmesg"
	line=$(grep -h -E '^(deepstack|manythreads|syscalls pid=[0-9]+ calls)' "$out/$id.out" | tail -n1)
	cpu=$(grep -h '^cpuof:' "$out/$id.err" | tail -n1)
	st=$(cat "$out/$id.status" 2>/dev/null)
	echo "result id=$id wl=$wl prof=$prof freq=$freq secs=$secs rc=$rc bytes=$bytes | $line | $cpu | $st"
	grep -h -i -E 'perf: interrupt took|throttl|lost' "$out/$id.err" "$out/$id.dmesg" 2>/dev/null |
		sed "s/^/note id=$id: /"
}

for wl in $workloads; do
	run "$wl-none-a" "$wl" none 0
	for freq in $freqs; do
		run "$wl-perf-$freq" "$wl" perf "$freq"
		run "$wl-lfr-$freq" "$wl" lfr "$freq"
		[ "$freq" = 999 ] && [ "$mode" = full ] && run "$wl-none-m" "$wl" none 0
	done
	run "$wl-none-b" "$wl" none 0
done
echo "bench: $n runs done"
