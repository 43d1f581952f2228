# OpenTelemetry thread contexts (OTEP 4947): the spanctx workload (tests/workloads/spanctx/ctx.c)
# with otel_thread_ctx_v1 in the executable (local-exec), in a library by TLS descriptors, in one
# by the GNU dialect's general-dynamic access, and in one loaded with dlopen (a block the DTV
# gives), each recorded with lfr record --wall 999 (CPU and wall-clock samples).  Its threads start
# their spans once a walk has read a context (the recorder registered the process: a handshake
# through `lfr status -m`'s ctx counter); thread-ctx.host then checks every sample against the
# function on its stack (tests/vm/scenarios/thread-ctx-check.py).
set -u
share=${LFR_SHARE:-/tmp}
fail=0
for v in spanctx spanctx-lib spanctx-gd spanctx-dlopen; do
	go=/tmp/go.$v
	rm -f "$go"
	lfr record --wall 999 -o "$share/$v.jfr" -- $v 1 "$go" >"$share/$v.txt" 2>"$share/$v.err" &
	rec=$!
	# liveness bound only: the first walk of this session (the newest, running) that reads a
	# context makes its ctx non-zero
	for i in $(seq 6000); do
		lfr status -m 2>/dev/null | grep -q '^status .*state=running.* ctx=[1-9]' && break
		kill -0 $rec 2>/dev/null || break
		sleep 0.1
	done
	lfr status -m | tr ' ' '\n' | grep -E '^ctx'
	touch "$go"
	wait $rec
	rc=$?
	cat "$share/$v.txt"
	grep -E 'samples|thread contexts|lost|warning' "$share/$v.err"
	[ $rc = 0 ] || { echo "thread-ctx: FAILED: lfr record of $v exited $rc"; cat "$share/$v.err"; fail=1; }
done
exit $fail
