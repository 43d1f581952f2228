# Kernel answers that liblfr cannot provoke, checked with the independent libnl client lfr-nl:
# - the event group: root joins it, an unprivileged user is refused (EPERM);
# - a START whose reply cannot be delivered (the sender's receive buffer is full) leaves no
#   session running;
# - /dev/lfr: bad offsets and sizes are refused, data pages are read-only (SIGBUS on a write, also
#   after mprotect), ctrl->tail is writable, and a session can only be mapped by the user who
#   started it (uid 65534 with CAP_PERFMON is refused root's session and maps its own);
# - STOP: uid 65534 with CAP_PERFMON may not stop root's session (with or without ABANDON), but
#   reads its STATUS and stops its own;
# - UNWIND_ADD: missing and bad descriptors, malformed and stale tables, a second table for an
#   inode, tables over the cap or without one, table descriptors that are not sealed memfds (a
#   memfd without seals or without F_SEAL_WRITE, a regular file), another user, a stopped session
#   are refused; a cap of 4 KiB keeps two of three tables (unwind_tables 2, unwind_evicted 1), and
#   4097 small tables keep 4096 (LFR_UNWIND_MAX_TABLES; unwind_evicted 1);
# - STATUS: the reply carries the totals and no per-CPU counters; STATUS as a dump gives those of
#   every possible CPU once, summing to the totals; lfr status -A shows them.
set -u
fail=0
lfr-nl listen || { echo "nl-checks: FAILED: root could not join the event group"; fail=1; }
su -s /bin/sh nobody -c 'lfr-nl listen'
rc=$?
[ $rc = 13 ] || { echo "nl-checks: FAILED: uid 65534 joining the event group: exit $rc, not 13 (EPERM)"; fail=1; }
lfr-nl overrun || fail=1
lfr-nl mmap || fail=1
lfr-nl owner || fail=1
lfr-nl unwind >/tmp/unwind.txt
rc=$?
cat /tmp/unwind.txt
[ $rc = 0 ] || fail=1
sid=$(sed -n 's/^lfr-nl: eviction session //p' /tmp/unwind.txt)
ev=$(lfr status -S "$sid" -m | grep '^status ')
echo "$ev" | tr ' ' '\n' | grep '^unwind_'
echo "$ev" | grep -q ' unwind_tables=2 ' && echo "$ev" | grep -q ' unwind_evicted=1 ' ||
	{ echo "nl-checks: FAILED: the cap of 4 KiB did not keep 2 tables of 3 and drop 1"; fail=1; }
lfr-nl unwind-count >/tmp/unwind-count.txt
rc=$?
cat /tmp/unwind-count.txt
[ $rc = 0 ] || fail=1
sid=$(sed -n 's/^lfr-nl: count cap session //p' /tmp/unwind-count.txt)
ev=$(lfr status -S "$sid" -m | grep '^status ')
echo "$ev" | tr ' ' '\n' | grep '^unwind_'
echo "$ev" | grep -q ' unwind_tables=4096 ' && echo "$ev" | grep -q ' unwind_evicted=1 ' ||
	{ echo "nl-checks: FAILED: 4097 tables did not leave 4096 and drop 1"; fail=1; }
# STATUS: totals in the reply, the per-CPU counters as a dump; lfr status -A prints one line per
# possible CPU from it
lfr-nl status >/tmp/status.txt
rc=$?
cat /tmp/status.txt
[ $rc = 0 ] || fail=1
sid=$(sed -n 's/^lfr-nl: session //p' /tmp/status.txt)
ncpu=$(lfr status -S "$sid" -A -m | grep -c '^status_cpu ')
echo "nl-checks: lfr status -A -m of session $sid: $ncpu per-CPU lines"
[ "$ncpu" = "$(sed -n 's/.* bytes, \([0-9]*\) possible CPUs$/\1/p' /tmp/status.txt)" ] ||
	{ echo "nl-checks: FAILED: lfr status -A -m printed $ncpu per-CPU lines"; fail=1; }
lfr status -m | cut -c1-100
[ $fail = 0 ] && echo "nl-checks: ok"
exit $fail
