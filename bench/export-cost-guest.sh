# The in-VM half of bench/export-cost: the always-on default (lfr record -a -F 49 --repository,
# 5 s chunks, 30 s with exports) while deepstack 32 SECONDS 2 runs, without lfr (none: the
# workload's own rate), without exports (record) and with an OTLP and a Pyroscope export to
# httpsink on the loopback (export), in rotating runs.  Each run warms up
# first (the workload for 10 s, then, with exports, until everything finished is delivered: lfr's
# own libraries mapped and named, the first chunks sent), then measures from there: the workload
# for SECONDS, then until every chunk finished is delivered (a handshake on lfr status -R: nothing
# waits but the chunk being written).  The window starts once the unwind-table loader
# (lfr-unwind, whose work is per new object) is idle.  Over that window: the CPU time (schedstat)
# of the recorder's threads (also over the workload alone: recorder_work_ns, taken_work), of the
# loader apart, and of its export threads, the samples the session took (samples_taken) and
# those the exports delivered (sent_samples), and the workload's work done (ops: what lfr costs it,
# module included, is the work it lost against none).  One "export-cost" line per run.
#   export-cost-guest.sh SECONDS RUNS
set -u
secs=$1 runs=$2
repo=/tmp/lfr-repo
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
mkdir -p /tmp/sink
httpsink /tmp/sink >/dev/null 2>&1 &
for i in $(seq 300); do [ -s /tmp/sink/port ] && break; sleep 0.1; done
port=$(cat /tmp/sink/port)
echo "export-cost: kernel $(uname -r), $(nproc) CPUs; lfr record -a -F 49 --repository $repo --max-age 30m --max-size 256M"
cpu() { # PID: "RECORDER_NS OTLP_NS PYROSCOPE_NS UNWIND_NS", its threads' CPU time by their
	# names (%.0f: busybox awk's %d stops at 2^31 ns)
	for t in /proc/$1/task/*; do echo "$(cat $t/comm) $(cut -d' ' -f1 $t/schedstat)"; done |
		awk '{ if ($1 == "lfr-export-otlp") o += $2; else if ($1 == "lfr-export-pyro") p += $2;
			else if ($1 == "lfr-unwind") u += $2; else r += $2 }
			END { printf "%.0f %.0f %.0f %.0f\n", r, o, p, u }'
}
unwind_idle() { # PID: until the unwind-table loader's CPU time stops growing (its work is per
	# new object: the warm-up's objects done, it does nothing per sample)
	local i a b
	b=$(cpu "$1" | cut -d' ' -f4)
	for i in $(seq 120); do
		sleep 1
		a=$b b=$(cpu "$1" | cut -d' ' -f4)
		[ "$a" = "$b" ] && return
	done
	echo "export-cost: the unwind loader still busy after 120 s" >&2
}
taken() { lfr status -m | awk '/^status / { for (i = 1; i <= NF; i++) { split($i, kv, "=");
	if (kv[1] == "samples_taken") print kv[2] } }'; }
st() { # KIND KEY
	lfr status -R $repo -m 2>/dev/null | awk -v t="target=$1=" -v k="$2" '$1 == "export" && index($2, t) == 1 {
		for (i = 2; i <= NF; i++) { split($i, a, "="); if (a[1] == k) print a[2] } }'
}
caught_up() { # SENT_CHUNKS_BEFORE: every finished chunk delivered, at least one more than before
	local i
	for i in $(seq 600); do
		[ "$(st otlp pending_chunks)" = 0 ] && [ "$(st pyroscope pending_chunks)" = 0 ] &&
			[ "$(st otlp sent_chunks)" -gt "$1" ] && [ "$(st pyroscope sent_chunks)" -gt "$1" ] && return
		sleep 0.5
	done
	echo "export-cost: not caught up after 300 s" >&2
}
for run in $(seq "$runs"); do
	for mode in none record export; do
		rm -rf $repo /tmp/sink/req-*
		if [ $mode = none ]; then
			deepstack 32 10 2 >/dev/null 2>&1
			deepstack 32 "$secs" 2 >/tmp/work.txt 2>/dev/null
			echo "export-cost mode=none run=$run $(grep -o 'seconds=[^ ]* ops=[0-9]*' /tmp/work.txt)"
			continue
		fi
		exp=
		[ $mode = export ] && exp="--export otlp=http://127.0.0.1:$port --export pyroscope=http://127.0.0.1:$port"
		# shellcheck disable=SC2086 # two options or none
		lfr record -a -q -F 49 --repository $repo --max-age 30m --max-size 256M $exp &
		rec=$!
		for i in $(seq 300); do lfr status -m | grep -q 'state=running' && break; sleep 0.1; done
		deepstack 32 10 2 >/dev/null 2>&1
		s0=0 p0=0
		if [ $mode = export ]; then
			caught_up 0
			s0=$(st otlp sent_samples) p0=$(st pyroscope sent_samples)
			c0=$(st otlp sent_chunks)
		fi
		unwind_idle $rec
		read -r r0 o0 y0 u0 <<EOF
$(cpu $rec)
EOF
		t0=$(taken)
		deepstack 32 "$secs" 2 >/tmp/work.txt 2>/dev/null
		# the recorder's threads over the workload alone: the wait for delivery that follows
		# (lfr status every half second, an idle machine sampled) is not per sample
		read -r rw _ <<EOF
$(cpu $rec)
EOF
		tw=$(taken)
		s1=0 p1=0
		if [ $mode = export ]; then
			caught_up "$((c0 + secs / 30 - 1))" # the exports' chunks are 30 s
			s1=$(st otlp sent_samples) p1=$(st pyroscope sent_samples)
		fi
		read -r r1 o1 y1 u1 <<EOF
$(cpu $rec)
EOF
		t1=$(taken)
		echo "export-cost mode=$mode run=$run recorder_ns=$((r1 - r0)) recorder_work_ns=$((rw - r0)) taken_work=$((tw - t0)) otlp_ns=$((o1 - o0)) pyroscope_ns=$((y1 - y0)) unwind_ns=$((u1 - u0)) taken=$((t1 - t0)) sent_otlp=$((s1 - s0)) sent_pyroscope=$((p1 - p0)) $(grep -o 'seconds=[^ ]* ops=[0-9]*' /tmp/work.txt) requests=$(ls /tmp/sink | grep -c '\.body$') bytes=$(cat $repo/*Z.jfr | wc -c)"
		kill $rec
		wait $rec
	done
done
echo "export-cost: done"
