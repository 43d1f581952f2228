# The in-VM half of bench/offcpu-truth: offcpu ROUNDS 10 on CPU 1 without a profiler, then under
# lfr record --off-cpu at 99 and 999 Hz; the workload's lines and lfr's in $LFR_SHARE.  The
# workload pins itself: the command lfr runs is then the workload, whose unwind tables are loaded
# before it starts (under taskset they would come only once it mapped its objects).
#   offcpu-truth-guest.sh ROUNDS
set -u
rounds=$1
share=${LFR_SHARE:?}
echo "offcpu-truth: kernel $(uname -r), $(nproc) CPUs; lfr.ko $(cat /sys/module/lfr/version)"
offcpu "$rounds" 10 1 >"$share/none.txt"
for hz in 99 999; do
	lfr record -F "$hz" --off-cpu -o "$share/lfr-$hz.jfr" -- offcpu "$rounds" 10 1 \
		>"$share/lfr-$hz.txt" 2>"$share/lfr-$hz.err" ||
		{ echo "offcpu-truth: lfr record -F $hz exited $?"; cat "$share/lfr-$hz.err"; }
	grep -E 'off-CPU' "$share/lfr-$hz.err" | sed "s/^ */offcpu-truth: $hz Hz: /"
	lfr status -m | tr ' ' '\n' | grep -E '^offcpu(_short|_short_ns|_lost|_throttled)?=' |
		tr '\n' ' ' | sed "s/^/offcpu-truth: $hz Hz: status: /; s/\$/\n/"
done
