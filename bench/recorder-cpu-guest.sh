# The in-VM half of bench/recorder-cpu: `lfr record -F HZ -- deepstack 32 SECS 2`, and the
# recorder's own threads measured while the workload runs, from 0.5 s to SECS - 0.2 s: minor page
# faults (/proc/PID/task/TID/stat) and CPU time (schedstat: exact, not tick-sampled).  With a second
# lfr in $LFR_SHARE/lfr-other, the two alternate.  One "recorder" line per run and thread.
#   recorder-cpu-guest.sh SECONDS RUNS FREQ...
set -u
secs=$1 runs=$2
shift 2
lfrs="lfr"
if [ -x "$LFR_SHARE/lfr-other" ]; then
	cp "$LFR_SHARE/lfr-other" /tmp/lfr-other
	lfrs="lfr /tmp/lfr-other"
fi
snap() { # PID: "tid:comm:minflt:cpu_ns" per thread
	for t in /proc/$1/task/*; do
		echo "${t##*/}:$(cat $t/comm):$(cut -d' ' -f10 $t/stat):$(cut -d' ' -f1 $t/schedstat)"
	done
}
window=$(awk "BEGIN { print $secs - 0.7 }")
for run in $(seq "$runs"); do
	for hz in "$@"; do
		for l in $lfrs; do
			$l record -F "$hz" -q -o /tmp/r.jfr -- deepstack 32 "$secs" 2 >/tmp/r.out 2>&1 &
			p=$!
			sleep 0.5
			a=$(snap $p)
			sleep "$window"
			b=$(snap $p)
			wait $p
			rate=$(grep -o 'rate=[0-9.]*' /tmp/r.out)
			n=0
			for x in $a; do
				n=$((n + 1))
				y=$(echo "$b" | sed -n "${n}p")
				echo "recorder lfr=${l##*/} hz=$hz run=$run thread=$n $(echo "$x $y" |
					awk -F'[: ]' '{ printf "faults=%d cpu_ms=%.1f", $7 - $3, ($8 - $4) / 1e6 }') $rate"
			done
		done
	done
done
echo "recorder: done"
