# The in-VM half of bench/ab: nofp without a profiler, then under each build's `lfr record`,
# alternating; one "unwind" line per run (the format of bench/unwind-guest.sh).
#   ab-guest.sh SECONDS RUNS HZ
set -u
secs=$1 runs=$2 hz=$3
share=${LFR_SHARE:?}
cp "$share/lfr-A" "$share/lfr-B" /tmp/
echo "ab: kernel $(uname -r), $(nproc) CPUs; lfr.ko $(cat /sys/module/lfr/version)"
run() { # PROF
	local prof=$1 rc extra=""
	case $prof in
	none) nofp "$secs" >/tmp/w.txt 2>&1; rc=$? ;;
	*) "/tmp/lfr-$prof" record -F "$hz" -q -o /tmp/l.jfr -- nofp "$secs" >/tmp/w.txt 2>/tmp/l.err
	   rc=$?
	   extra="$(lfr status -m | grep '^status ' | tr ' ' '\n' |
		grep -E '^(records_ustack|work_ns|work_count)=' | tr '\n' ' ')"
	   rm -f /tmp/l.jfr ;;
	esac
	echo "unwind prof=$prof hz=$hz run=$run rc=$rc $(grep -h '^work ' /tmp/w.txt | cut -d' ' -f2-) $extra"
}
for run in $(seq "$runs"); do
	run none
	if [ $((run % 2)) = 0 ]; then run A; run B; else run B; run A; fi
done
echo "ab: done"
