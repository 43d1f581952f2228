# Stress: system-wide sampling at 10 kHz of CPU time per CPU while `churn` keeps 240 threads being
# created, exec-ing and exiting (plus forks that exec and exit at once); the live population while
# sampling is printed.  On the debug kernel (KASAN, lockdep) it runs for 60 s of guest time, on the
# stock kernel for 5 s (some 6 000 threads created, 100 000 ticks).  The accounting must balance exactly, and the module must unload cleanly
# afterwards (and load again).
set -u
secs=5
[ "${LFR_KERNEL:-stock}" = debug ] && secs=60
share=${LFR_SHARE:-/tmp}
start=$(cut -d' ' -f1 /proc/uptime)

# Live threads of all churn processes, once a second while sampling: "alive N" lines.
count_threads() {
	while :; do
		n=0
		for s in /proc/[0-9]*/status; do
			name="" threads=0
			# shell builtins only: forks are slow while everything is sampled at 10 kHz
			while read -r k v _; do
				case $k in Name:) name=$v ;; Threads:) threads=$v; break ;; esac
			done 2>/dev/null <"$s"
			case $name in churn*) n=$((n + threads)) ;; esac
		done
		echo "alive $n"
		sleep 1
	done
}

churn $((secs + 6)) 240 >churn.txt 2>&1 &
churn_pid=$!
sleep 3 # the population builds up before sampling starts
count_threads >alive.txt &
counter=$!
# The drain can last until churn ends: its parent may have a walk queued while it blocks in read().
# This shell may have one queued too (a tick between forking lfr raw and blocking in wait()):
# that walk runs only once lfr raw has returned, so lfr raw gives it up after its drain timeout.
lfr raw -a -F 10000 -q --ring-pages 256 --max-threads 16384 -d "$secs" --drain-timeout 30000 \
	-o "$share/stress-dump.txt"
rc=$?
dump_end=$(cut -d' ' -f1 /proc/uptime)
kill $counter
wait $churn_pid
crc=$?
end=$(cut -d' ' -f1 /proc/uptime)
cat churn.txt
grep -E '^(session|read|read_cpu|read_flag|check|summary) ' "$share/stress-dump.txt"
grep '^status ' "$share/stress-dump.txt"
echo "stress: $secs s of sampling on $(uname -r) (${LFR_KERNEL:-?} kernel); uptime: start $start s, lfr raw done $dump_end s, churn done $end s"
fail=0
if [ $rc != 0 ]; then echo "stress: FAILED: lfr raw exited with $rc"; fail=1; fi
if [ $crc != 0 ]; then echo "stress: FAILED: churn exited with $crc"; fail=1; fi
created=$(sed -n 's/.*threads_created=\([0-9]*\).*/\1/p' churn.txt)
execs=$(sed -n 's/.* execs=\([0-9]*\).*/\1/p' churn.txt)
if [ -z "$created" ] || [ "$created" -lt 400 ]; then
	echo "stress: FAILED: churn created ${created:-no} threads (want >= 400)"; fail=1
fi
alive=$(awk '$1 == "alive" { n++; s += $2; if (n == 1 || $2 < lo) lo = $2; if ($2 > hi) hi = $2 }
	END { printf "%d %d %d %d", n, lo, n ? s / n : 0, hi }' alive.txt)
set -- $alive
echo "stress: live churn threads while sampling ($1 counts, once a second): min $2, mean $3, max $4"
# Under TCG, 10 kHz walks take much of the CPU and thread creation slows down with them, so the
# live population while sampling is printed as a figure; what must hold is the churn itself.
if [ -z "$execs" ] || [ "$execs" -lt 4 ]; then
	echo "stress: FAILED: churn exec'd ${execs:-no} times"; fail=1
fi
samples=$(sed -n 's/^read records=[0-9]* samples=\([0-9]*\).*/\1/p' "$share/stress-dump.txt")
if [ -z "$samples" ] || [ "$samples" -lt 1000 ]; then
	echo "stress: FAILED: only ${samples:-no} samples"; fail=1
fi
# the module unloads cleanly after the run and loads again (once the session is stopped: a walk
# that has just run may still be returning)
for i in $(seq 60); do
	case "$(lfr status -m)" in *state=stopped*works_pending=0*) break ;; esac
	sleep 1
done
for i in $(seq 600); do [ "$(cat /sys/module/lfr/refcnt 2>/dev/null)" = 0 ] && break; sleep 0.1; done
# Walks given up after the drain timeout (lost_abandoned, on a loaded guest) keep one module
# reference each until their threads return to user space, which a daemon blocked in the kernel
# may never do (Documentation/kernel.md, "Giving walks up"): rmmod is then refused, and no more
# references may be left than walks were given up.
abandoned=$(lfr status -m | tr ' ' '\n' | sed -n 's/^lost_abandoned=//p')
refs=$(cat /sys/module/lfr/refcnt 2>/dev/null)
rmmod lfr 2>/dev/null
if ! grep -q '^lfr ' /proc/modules; then
	insmod /lib/lfr/lfr.ko || { echo "stress: FAILED: insmod after rmmod"; fail=1; }
elif [ "${abandoned:-0}" -gt 0 ] && [ "${refs:-1}" -le "$abandoned" ]; then
	echo "stress: rmmod refused while $refs of the walks given up ($abandoned ticks) wait for their threads"
else
	echo "stress: FAILED: rmmod lfr after the run ($refs references, $abandoned ticks given up)"; fail=1
fi
lfr status -m || fail=1
[ $fail = 0 ] && echo "stress: ok"
exit $fail
