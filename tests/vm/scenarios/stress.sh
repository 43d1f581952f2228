# Stress: system-wide sampling at 10 kHz of CPU time per CPU while `churn` keeps threads being
# created, exec-ing and exiting (240 asked for, at least 200 alive at once, plus forks that exec and
# exit at once).  On the debug kernel (KASAN, lockdep) it runs for 60 s of guest time; on the stock
# kernel for 10 s.  The accounting
# must balance exactly, and the module must unload cleanly afterwards (and load again).
set -u
secs=10
[ "${LFR_KERNEL:-stock}" = debug ] && secs=60
share=${LFR_SHARE:-/tmp}
start=$(cut -d' ' -f1 /proc/uptime)

churn $((secs + 3)) 240 >churn.txt 2>&1 &
churn_pid=$!
sleep 1
lfr dump -a -F 10000 -q --ring-pages 256 --max-threads 16384 -d "$secs" --drain-timeout 60000 \
	-o "$share/stress-dump.txt"
rc=$?
dump_end=$(cut -d' ' -f1 /proc/uptime)
wait $churn_pid
crc=$?
end=$(cut -d' ' -f1 /proc/uptime)
cat churn.txt
grep -E '^(session|read|read_cpu|read_flag|check|summary) ' "$share/stress-dump.txt"
grep '^status ' "$share/stress-dump.txt"
echo "stress: $secs s of sampling on $(uname -r) (${LFR_KERNEL:-?} kernel); uptime: start $start s, lfr dump done $dump_end s, churn done $end s"
fail=0
if [ $rc != 0 ]; then echo "stress: FAILED: lfr dump exited with $rc"; fail=1; fi
if [ $crc != 0 ]; then echo "stress: FAILED: churn exited with $crc"; fail=1; fi
created=$(sed -n 's/.*threads_created=\([0-9]*\).*/\1/p' churn.txt)
execs=$(sed -n 's/.* execs=\([0-9]*\).*/\1/p' churn.txt)
if [ -z "$created" ] || [ "$created" -lt 200 ]; then
	echo "stress: FAILED: churn created ${created:-no} threads (want >= 200)"; fail=1
fi
peak=$(sed -n 's/.* peak_threads=\([0-9]*\).*/\1/p' churn.txt)
if [ -z "$peak" ] || [ "$peak" -lt 200 ]; then
	echo "stress: FAILED: at most ${peak:-no} threads were alive at once (want >= 200)"; fail=1
fi
if [ -z "$execs" ] || [ "$execs" -lt 4 ]; then
	echo "stress: FAILED: churn exec'd ${execs:-no} times"; fail=1
fi
samples=$(sed -n 's/^read records=[0-9]* samples=\([0-9]*\).*/\1/p' "$share/stress-dump.txt")
if [ -z "$samples" ] || [ "$samples" -lt 1000 ]; then
	echo "stress: FAILED: only ${samples:-no} samples"; fail=1
fi
# the module unloads cleanly after the run and loads again
if ! rmmod lfr; then echo "stress: FAILED: rmmod lfr after the run"; fail=1; fi
if ! insmod /lib/lfr/lfr.ko; then echo "stress: FAILED: insmod after rmmod"; fail=1; fi
lfr status -m || fail=1
[ $fail = 0 ] && echo "stress: ok"
exit $fail
