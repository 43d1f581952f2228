# The netlink and /dev/lfr fuzzer (tests/nlclient, libnl-3): generated and mutated messages of
# every command and attribute from root and from uid 65534 at once, with sessions started and
# stopped, sockets closed under running sessions, /dev/lfr mapped at bad offsets and sizes, and
# the module unloaded and reloaded.  Every answer must be a valid error or success; the harness
# fails the run on any kernel report (KASAN, lockdep, WARNING...).
#   SCENARIO [SECONDS [MESSAGES]]: 45 s by default on the debug kernel, where KASAN and lockdep
#   see a memory or locking error the moment it happens; 8 s elsewhere (about 100 000 messages),
#   where only the answers and a crash show; with MESSAGES the run ends at that count.
set -u
secs=8
[ "${LFR_KERNEL:-stock}" = debug ] && secs=45
secs=${1:-$secs}
n=${2:-0}
lfr-nl fuzz -r -t "$secs" -n "$n"
rc=$?
grep -q '^lfr ' /proc/modules || insmod /lib/lfr/lfr.ko
# Detached sessions the fuzzer started run on (up to 8 at once) and their stack walks hold module
# references, so rmmod fails while they sample: stop them, as an operator would before unloading.
left=$(lfr status -m | grep -c '^session .*state=running')
[ "$left" = 0 ] && lfr status -m | grep -q '^status .*state=running' && left=1
echo "nl-fuzz: sessions still running after the fuzzer: $left"
for id in $(lfr status -m | sed -n 's/^session id=\([0-9]*\) state=running.*/\1/p'); do
	lfr stop -S "$id" --timeout 2s >/dev/null
done
lfr status -m | grep -q '^status .*state=running' && lfr stop --timeout 2s >/dev/null
exit $rc
