# The in-VM half of bench/ab: the workload without a profiler, then under each build's `lfr
# record`, alternating; one "unwind" line per run (the format of bench/unwind-guest.sh).  With
# lfr-A.ko and lfr-B.ko in the share, each build's module is loaded for its runs.
#   ab-guest.sh SECONDS RUNS HZ DEEP
set -u
secs=$1 runs=$2 hz=$3 deep=$4
share=${LFR_SHARE:?}
cp "$share/lfr-A" "$share/lfr-B" /tmp/
echo "ab: kernel $(uname -r), $(nproc) CPUs; lfr.ko $(cat /sys/module/lfr/version)"
if [ "$deep" = 1 ]; then
	cmd="deepstack 40 $secs 2"
	tag=deepstack
else
	cmd="nofp $secs"
	tag=work
fi
load() { # PROF: that build's module, when bench/ab --kmod built one
	[ -f "$share/lfr-$1.ko" ] || return 0
	for _ in $(seq 50); do grep -q '^lfr ' /proc/modules || break; rmmod lfr 2>/dev/null; sleep 0.1; done
	insmod "$share/lfr-$1.ko" || { echo "ab: insmod lfr-$1.ko failed"; exit 1; }
}
run() { # PROF
	local prof=$1 rc extra=""
	# shellcheck disable=SC2086 # $cmd: the workload's words
	case $prof in
	none) $cmd >/tmp/w.txt 2>&1; rc=$? ;;
	*) load "$prof"
	   "/tmp/lfr-$prof" record -F "$hz" -q -o /tmp/l.jfr -- $cmd >/tmp/w.txt 2>/tmp/l.err
	   rc=$?
	   extra="$(lfr status -m | grep '^status ' | tr ' ' '\n' |
		grep -E '^(records_ustack|work_ns|work_count)=' | tr '\n' ' ')"
	   rm -f /tmp/l.jfr ;;
	esac
	echo "unwind prof=$prof hz=$hz run=$run rc=$rc $(grep -h "^$tag " /tmp/w.txt | cut -d' ' -f2-) $extra"
}
for run in $(seq "$runs"); do
	run none
	if [ $((run % 2)) = 0 ]; then run A; run B; else run B; run A; fi
done
echo "ab: done"
