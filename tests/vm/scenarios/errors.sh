# Errors a user can cause reach them with the kernel's own extack message, the attribute it names,
# a hint of what to do, and a distinct exit status: no such process (5), a ninth session (7), a
# value the module rejects (2), a STOP that must name one of several sessions (2), nothing to stop,
# and the module not loaded (3).
set -u
fail=0
# expect STATUS PATTERN COMMAND...: runs COMMAND, wants exit STATUS and PATTERN in its stderr
expect() {
	want=$1 pat=$2
	shift 2
	"$@" >out.txt 2>err.txt
	rc=$?
	if [ $rc = "$want" ] && grep -q -- "$pat" err.txt && grep -q 'hint: ' err.txt; then
		echo "errors: '$*': exit $rc: $(head -n 1 err.txt)"
		echo "errors:     $(grep 'hint: ' err.txt | head -n 1 | sed 's/^ *//')"
	else
		echo "errors: FAILED: '$*': exit $rc (want $want and '$pat'):"
		cat out.txt err.txt
		fail=1
	fi
}
sleep 600 &
sleeper=$!
expect 5 'a target process does not exist' lfr raw -p 999999 -d 1
expect 2 'ring pages must be a power of two' lfr raw -p $sleeper -d 1 --ring-pages 3
expect 2 'wakeup bytes larger than the ring' lfr raw -p $sleeper -d 1 --ring-pages 2 --wakeup-bytes 100000
# a ring smaller than two user-stack records (56 + 8 * (2048 + 16) bytes each > 2 pages) would lose them
expect 2 'the ring is smaller than two user-stack records' lfr raw -p $sleeper -d 1 --ring-pages 2 -g 2048 -k
expect 1 'no session is running' lfr stop
lfr raw --detach -p $sleeper >/dev/null || { echo "errors: FAILED: detached START"; fail=1; }
lfr status --per-cpu || { echo "errors: FAILED: lfr status of a running session"; fail=1; }
# up to 8 sessions run at once: 7 more start, the ninth is refused
for i in $(seq 7); do
	lfr raw --detach -p $sleeper >/dev/null || { echo "errors: FAILED: detached START $((i + 1))"; fail=1; }
done
running=$(lfr status -m | grep -c '^session .*state=running')
echo "errors: sessions running: $running"
[ "$running" = 8 ] || { echo "errors: FAILED: lfr status lists $running running sessions, not 8"; fail=1; }
expect 7 '8 sessions are already running' lfr raw -p $sleeper -d 1
expect 2 'several sessions are running' lfr stop
expect 1 'no such session' lfr status -S 77
for id in $(lfr status -m | sed -n 's/^session id=\([0-9]*\) state=running.*/\1/p'); do
	lfr stop -S "$id" >/dev/null || { echo "errors: FAILED: lfr stop -S $id"; fail=1; }
done
expect 1 'no session is running' lfr stop
for i in $(seq 600); do [ "$(cat /sys/module/lfr/refcnt 2>/dev/null)" = 0 ] && break; sleep 0.1; done # kernel.md: the last module reference
rmmod lfr 2>/dev/null
grep -q '^lfr ' /proc/modules && { echo "errors: FAILED: rmmod"; rmmod lfr; fail=1; }
expect 3 'no generic netlink family "lfr"' lfr status
expect 3 'no generic netlink family "lfr"' lfr raw -a -d 1
insmod /lib/lfr/lfr.ko || { echo "errors: FAILED: insmod"; fail=1; }
# --export in a guest without libcurl (its loading waits for the first upload): said at the start
lfr record -a --repository /tmp/lfr-nocurl --export otlp=http://127.0.0.1:9 >out.txt 2>err.txt
rc=$?
if [ $rc != 0 ] && grep -q 'libcurl.so.4 is not installed: install libcurl4' err.txt; then
	echo "errors: --export without libcurl: exit $rc: $(head -n 1 err.txt)"
else
	echo "errors: FAILED: --export without libcurl: exit $rc:"
	cat out.txt err.txt
	fail=1
fi
kill $sleeper
[ $fail = 0 ] && echo "errors: ok"
exit $fail
