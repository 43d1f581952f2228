# `lfr record` in a time namespace whose CLOCK_MONOTONIC runs an hour ahead of the kernel's (a
# container, a restored checkpoint: time_namespaces(7)).  lfr.ko stamps its records with the
# kernel's clock; the recorder pairs the wall clock with that clock, not with its own, so the
# file's samples are where the wall clock was while they ran (timens.host reads them with the JDK:
# an hour early before) and the recorder's reads give nothing up early.
set -u
share=${LFR_SHARE:-/tmp}
fail=0
if ! timens 3600 cat /proc/self/timens_offsets >timens.offsets 2>&1 ||
	! grep -Eq '^monotonic +3600 +0$' timens.offsets; then
	echo "timens: FAILED: no time namespace with its clock an hour ahead: $(cat timens.offsets)"
	exit 1
fi
date +%s >"$share/timens.before"
timens 3600 lfr record -q -F 499 -o "$share/timens.jfr" -- callgraph 2 \
	>/dev/null 2>timens.err || { echo "timens: FAILED: lfr record: $(cat timens.err)"; fail=1; }
date +%s >"$share/timens.after"
echo "timens: recorded in a time namespace (monotonic +3600 s), $(wc -c <"$share/timens.jfr") bytes"
[ $fail = 0 ] && echo "timens: ok"
exit $fail
