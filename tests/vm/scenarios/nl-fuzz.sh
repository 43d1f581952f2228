# The netlink and /dev/lfr fuzzer (tests/nlclient, libnl-3): generated and mutated messages of
# every command and attribute from root and from uid 65534 at once, with sessions started and
# stopped, sockets closed under running sessions, /dev/lfr mapped at bad offsets and sizes, and
# the module unloaded and reloaded.  Every answer must be a valid error or success; the harness
# fails the run on any kernel report (KASAN, lockdep, WARNING...).
#   SCENARIO [SECONDS [MESSAGES]]: 45 s by default; with MESSAGES the run ends at that count.
set -u
secs=${1:-45}
n=${2:-0}
lfr-nl fuzz -r -t "$secs" -n "$n"
rc=$?
grep -q '^lfr ' /proc/modules || insmod /lib/lfr/lfr.ko
exit $rc
