# What a session may cost.  START refuses a session whose allocations (rings for every possible CPU,
# thread table, kernel-stack buffers, tables, pools, walk memos, mm slots, unwind tables up to
# their cap) exceed lfr.max_session_mb, with a message naming the parameter; and charges its ring pages as locked memory like perf: a user with
# CAP_PERFMON but without CAP_IPC_LOCK and with RLIMIT_MEMLOCK 0 gets mlock_kb (516) KiB per online
# CPU: with 2 CPUs 258 pages, so a 64-page ring (2 x 65 pages) fits, a 256-page one (2 x 257) does not, and
# the charge of a freed session is given back.
set -u
fail=0
sleep 600 &
sleeper=$!
echo 4 >/sys/module/lfr/parameters/max_session_mb || { echo "mem-cap: FAILED: no parameter max_session_mb"; fail=1; }
lfr raw -p $sleeper -d 1 --ring-pages 1024 >out.txt 2>err.txt
rc=$?
echo "mem-cap: 1024 ring pages with a 4 MiB cap: exit $rc: $(head -n 1 err.txt)"
[ $rc != 0 ] && grep -q 'lfr.max_session_mb' err.txt || { echo "mem-cap: FAILED: the cap was not applied"; fail=1; }
# The unwind tables count up to their cap (--unwind-max) at START: 8 MiB of them do not fit a
# session of 4 MiB whose rings and tables would (8 ring pages).
lfr record -p $sleeper -d 1 --ring-pages 8 --unwind-max 8M -o /tmp/mem-cap.jfr >out.txt 2>err.txt
rc=$?
echo "mem-cap: 8 MiB of unwind tables with a 4 MiB cap: exit $rc: $(grep -m 1 'max_session_mb' err.txt)"
[ $rc != 0 ] && grep -q 'lfr.max_session_mb' err.txt && grep -q -- '--unwind-max' err.txt ||
	{ echo "mem-cap: FAILED: the unwind tables were not counted"; cat err.txt; fail=1; }
lfr record -p $sleeper -d 1 --ring-pages 8 --unwind-max 1M -o /tmp/mem-cap.jfr >out.txt 2>err.txt ||
	{ echo "mem-cap: FAILED: 1 MiB of unwind tables under a 4 MiB cap"; cat err.txt; fail=1; }
rm -f /tmp/mem-cap.jfr
echo 256 >/sys/module/lfr/parameters/max_session_mb
lfr raw -p $sleeper -d 1 --ring-pages 1024 >out.txt 2>err.txt || {
	echo "mem-cap: FAILED: 1024 ring pages under the default cap"; cat err.txt; fail=1; }
echo "mem-cap: online CPUs: $(grep -c '^processor' /proc/cpuinfo)"
lfr-nl memlock 64 256 || fail=1
kill $sleeper
[ $fail = 0 ] && echo "mem-cap: ok"
exit $fail
