# The in-VM half of bench/always-on: the two-thread, 32-frame workload (deepstack 32 SECONDS 2,
# both CPUs busy) alone (none), with the service's recorder running (on: lfr record -a
# --repository with the options given), recorded ad hoc by `lfr record -F 999 -- deepstack`
# (adhoc), and both at once (both: a thread sampled by two sessions), in rotating order, in one
# boot.  One "always-on" line per run for the report.
#   always-on-guest.sh SECONDS RUNS "LFR RECORD OPTIONS"
set -u
secs=$1 runs=$2 opts=$3
repo=/tmp/lfr-repo
echo "always-on: kernel $(uname -r), $(nproc) CPUs; lfr.ko $(cat /sys/module/lfr/version); lfr record -a --repository $repo $opts"
# utime + stime of a process, in USER_HZ ticks (100 per second on x86)
cpu_of() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
# the module's CPU time for a session so far: timer interrupts and stack walks, in ns
module_ns() { lfr status -S "$1" -m | awk '/^status / { for (i = 1; i <= NF; i++) { split($i, kv, "=");
	if (kv[1] == "irq_ns" || kv[1] == "work_ns") s += kv[2] } } END { print s + 0 }'; }

run() { # MODE
	local mode=$1 rec="" cid="" c0=0 c1=0 m0=0 m1=0 am=0 bytes=0 aid
	if [ "$mode" = on ] || [ "$mode" = both ]; then
		rm -rf "$repo"
		# shellcheck disable=SC2086
		lfr record -a -q --repository "$repo" $opts &
		rec=$!
		for i in $(seq 300); do lfr status -m | grep -q 'state=running' && break; sleep 0.1; done
		sleep 1
		cid=$(lfr status -m | sed -n 's/^status session=\([0-9]*\) .*/\1/p')
		c0=$(cpu_of $rec)
		m0=$(module_ns "$cid")
	fi
	if [ "$mode" = adhoc ] || [ "$mode" = both ]; then
		lfr record -F 999 -q -o /tmp/adhoc.jfr -- deepstack 32 "$secs" 2 >/tmp/work.txt 2>/dev/null
		aid=$(lfr status -m | sed -n 's/^status session=\([0-9]*\) .*/\1/p')
		am=$(module_ns "$aid")
		rm -f /tmp/adhoc.jfr
	else
		deepstack 32 "$secs" 2 >/tmp/work.txt 2>/dev/null
	fi
	if [ -n "$rec" ]; then
		c1=$(cpu_of $rec)
		m1=$(module_ns "$cid")
		kill -TERM $rec
		wait $rec
		bytes=$(cat "$repo"/*Z.jfr | wc -c)
	fi
	echo "always-on mode=$mode run=$run recorder_cpu_ticks=$((c1 - c0)) always_module_ns=$((m1 - m0)) adhoc_module_ns=$am repo_bytes=$bytes cpus=$(nproc) | $(grep -h '^deepstack ' /tmp/work.txt)"
}

modes="none on adhoc both"
for run in $(seq "$runs"); do
	# rotate the order, so that no mode always follows another
	for mode in $modes; do run "$mode"; done
	modes="${modes#* } ${modes%% *}"
done
echo "always-on: done"
