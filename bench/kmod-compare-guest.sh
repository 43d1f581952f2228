# The in-VM half of bench/kmod-compare: the tree's lfr.ko (/lib/lfr/lfr.ko) and the other one
# ($LFR_SHARE/old.ko) loaded in turn, each round in the other order, deepstack 32 under each.
#   kmod-compare-guest.sh SECONDS RUNS "WALKS" FREQ...
set -u
secs=$1 runs=$2 walks=$3
shift 3
share=${LFR_SHARE:?}
echo "kmod: kernel $(uname -r), $(nproc) CPUs"

alone() {
	echo "kmod mod=none hz=0 walk=none run=$run $(deepstack 32 "$secs" 2 2>&1 | grep '^deepstack ')"
}

under() { # NAME KO
	insmod "$2" || { echo "kmod: insmod $2 failed"; exit 1; }
	for hz in $freqs; do
		for walk in $walks; do
			lfr record --call-graph "$walk" -F "$hz" -q -o /tmp/d.jfr -- deepstack 32 "$secs" 2 \
				>/tmp/d.txt 2>/tmp/d.err
			rc=$?
			w=$(grep '^deepstack ' /tmp/d.txt)
			st=$(lfr status -m | grep '^status ' | tr ' ' '\n' | grep -E \
				'^(records_ustack|work_ns|work_count|ticks_committed|lost_missed|unwind_frames)=' |
				tr '\n' ' ')
			echo "kmod mod=$1 hz=$hz walk=$walk run=$run rc=$rc $w | $st"
			rm -f /tmp/d.jfr
		done
	done
	# the walks drop their module references after an RCU-tasks grace period
	for i in $(seq 50); do rmmod lfr 2>/dev/null && break; sleep 0.1; done
	! grep -q "^lfr " /proc/modules || { echo "kmod: rmmod failed"; exit 1; }
}

freqs=$*
for run in $(seq "$runs"); do
	alone
	if [ $((run % 2)) = 1 ]; then
		under new /lib/lfr/lfr.ko; under old "$share/old.ko"
	else
		under old "$share/old.ko"; under new /lib/lfr/lfr.ko
	fi
done
alone
echo "kmod: done"
