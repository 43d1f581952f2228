# lfr record --export: a system-wide continuous recording sends its chunks to a receiver on the
# guest's loopback (httpsink, which keeps every request: the guest has no other network) as
# OTLP/HTTP and as Pyroscope uploads, while three processes run in a systemd service's, another
# service's and a container's cgroups (their service.name and container.id come from there).
#  1. The receiver up: chunks are delivered.
#  2. The receiver down for 10 s and more; meanwhile the recorder is killed (kill -9) with chunks
#     waiting, and started again on the same repository, where more chunks wait; then up: the
#     waiting chunks are delivered, after a wait that doubles, in order, once.  The recorder is
#     stopped (SIGTERM) and sends what is left.  export.host: every sample of every chunk file
#     reached both backends once, with its process's service and labels.
#  3. The receiver answering 503 while a repository capped at 256 KiB (--max-size) evicts what
#     waits: each chunk removed before it was delivered is counted lost (evicted), the rest sent.
#  4. libcurl is loaded at the first upload, not while the recording starts: not in the
#     recorder's mappings while its first chunk (10 minutes long) is open; its chunk delivered
#     when it stops.
# Waits are handshakes on the exports' state (lfr status -R DIR -m), bounded for hung runs only.
set -u
share=${LFR_SHARE:-/tmp}
cg=/sys/fs/cgroup
cid=b4d6d161c62525d726fa394b27df30e14f8ea5646313ada576b390de70cfc8cc
fail=0
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up

# st REPO KIND KEY: a number of the export of KIND in lfr status -R REPO -m (0 when not there)
st() {
	lfr status -R "$1" -m 2>/dev/null | awk -v t="target=$2=" -v k="$3" '
		$1 == "export" && index($2, t) == 1 { for (i = 2; i <= NF; i++) { split($i, a, "=")
			if (a[1] == k) { print a[2]; found = 1 } } } END { if (!found) print 0 }'
}
# until SECONDS COMMAND...: runs COMMAND every 0.2 s until it succeeds; a liveness bound
until_ok() {
	local n=$(($1 * 5))
	shift
	while ! "$@"; do
		n=$((n - 1))
		[ $n -gt 0 ] || return 1
		sleep 0.2
	done
}
ge() { [ "$(st "$1" "$2" "$3")" -ge "$4" ]; }
sink_up() { # DIR [PORT]
	httpsink "$@" >>"$share/sink.err" 2>&1 &
	sink=$!
	until_ok 60 test -s "$1/port"
}

# the three processes, each starting in its cgroup before it runs
mkdir -p $cg/system.slice/checkout.service $cg/system.slice/db.service $cg/system.slice/docker-$cid.scope
sh -c "echo \$\$ >$cg/system.slice/checkout.service/cgroup.procs; exec spin 900" &
p_checkout=$!
sh -c "echo \$\$ >$cg/system.slice/db.service/cgroup.procs; exec spin 900" &
p_db=$!
sh -c "echo \$\$ >$cg/system.slice/docker-$cid.scope/cgroup.procs; exec spin 900" &
p_container=$!
echo "checkout=$p_checkout db=$p_db container=$p_container cid=$cid" >"$share/pids"

# 1. up
repo=/tmp/lfr-export-repo
rm -rf /tmp/sink && mkdir -p /tmp/sink
sink_up /tmp/sink || { echo "export: FAILED: httpsink did not start"; exit 1; }
port=$(cat /tmp/sink/port)
targets="otlp=http://127.0.0.1:$port pyroscope=http://127.0.0.1:$port"
record() { # REPO LOG [ARGS...]
	local r=$1 log=$2
	shift 2
	lfr record -a --chunk-age 1s --repository "$r" --export "$targets" --label env=vmtest "$@" \
		>>"$share/$log" 2>&1 &
	rec=$!
}
record $repo rec.err --max-size 64M -F 99
until_ok 300 ge $repo otlp sent_chunks 2 && until_ok 300 ge $repo pyroscope sent_chunks 2 ||
	{ echo "export: FAILED: no chunk delivered with the receiver up"; fail=1; }
echo "export: up: $(lfr status -R $repo -m | grep '^export' | cut -d' ' -f2-6 | tr '\n' ';')"

# 2. down; the recorder killed with chunks waiting and started again; up after 10 s or more
kill $sink
wait $sink 2>/dev/null
down=$(date +%s)
sent1=$(st $repo otlp sent_chunks)
until_ok 300 ge $repo otlp pending_chunks 2 || { echo "export: FAILED: no chunk waits while down"; fail=1; }
kill -9 $rec
wait $rec 2>/dev/null
waiting=$(st $repo otlp pending_chunks)
echo "export: recorder killed with $waiting chunks waiting, $sent1 sent"
record $repo rec2.err --max-size 64M -F 99
until_ok 300 ge $repo otlp pending_chunks $((waiting + 2)) ||
	{ echo "export: FAILED: the second recorder's chunks do not wait"; fail=1; }
# the backend stays down for at least 10 s (its downtime, not a check)
while [ $(($(date +%s) - down)) -lt 10 ]; do sleep 0.5; done
backlog=$(st $repo otlp pending_chunks)
retries=$(st $repo otlp retries)
echo "export: after $(($(date +%s) - down)) s down: $backlog chunks waiting, $retries requests tried again"
[ "$retries" -gt 0 ] || { echo "export: FAILED: nothing was tried again while down"; fail=1; }
sink_up /tmp/sink "$port" || { echo "export: FAILED: httpsink did not start again"; fail=1; }
until_ok 600 ge $repo otlp sent_chunks $((sent1 + backlog)) &&
	until_ok 600 ge $repo pyroscope sent_chunks $((sent1 + backlog)) ||
	{ echo "export: FAILED: the backlog was not delivered"; fail=1; }
# the recorder stopped once the processes have ended: it sends what waits (for up to 30 s)
kill $p_checkout $p_db $p_container
wait $p_checkout $p_db $p_container 2>/dev/null
kill $rec
wait $rec
rc=$?
[ $rc = 0 ] || { echo "export: FAILED: the second recorder exited $rc"; fail=1; }
lfr status -R $repo -m | grep '^export' | tee "$share/status.txt"
grep -A2 '  export ' "$share/rec2.err"
for k in otlp pyroscope; do
	[ "$(st $repo $k pending_chunks)" = 0 ] && [ "$(st $repo $k lost_evicted)" = 0 ] ||
		{ echo "export: FAILED: $k: chunks left or lost"; fail=1; }
done
mkdir -p "$share/repo" "$share/sink"
cp $repo/*.jfr "$share/repo/"
cp /tmp/sink/req-* "$share/sink/"
lfr dump -q -o /tmp/all.jfr $repo && lfr report -s service /tmp/all.jfr >"$share/by-service.txt"

# 3. the cap: 503 while a repository of 256 KiB evicts what waits
repo=/tmp/lfr-export-cap
rm -rf /tmp/sink2 && mkdir -p /tmp/sink2
echo 503 >/tmp/sink2/status
kill $sink
wait $sink 2>/dev/null
sink_up /tmp/sink2 || { echo "export: FAILED: httpsink did not start"; fail=1; }
port=$(cat /tmp/sink2/port)
targets="otlp=http://127.0.0.1:$port"
sh -c "echo \$\$ >$cg/system.slice/checkout.service/cgroup.procs; exec spin 900" &
p_checkout=$!
sh -c "echo \$\$ >$cg/system.slice/db.service/cgroup.procs; exec spin 900" &
p_db=$!
record $repo cap.err --max-size 256K -F 999 -k
until_ok 600 ge $repo otlp lost_evicted 2 || { echo "export: FAILED: nothing evicted"; fail=1; }
rm -f /tmp/sink2/status
lost=$(st $repo otlp lost_evicted)
until_ok 300 ge $repo otlp sent_chunks 1 || { echo "export: FAILED: nothing sent after the 503s"; fail=1; }
kill $p_checkout $p_db
wait $p_checkout $p_db 2>/dev/null
kill $rec
wait $rec
lfr status -R $repo -m | grep '^export' | tee "$share/cap-status.txt"
grep -E 'removed by its limits|  export ' "$share/cap.err"
mkdir -p "$share/cap-repo" "$share/cap-sink"
cp $repo/*.jfr "$share/cap-repo/"
cp /tmp/sink2/req-* "$share/cap-sink/"

# 4. libcurl loaded at the first upload
repo=/tmp/lfr-export-lazy
lfr record -a --chunk-age 10m --repository $repo --export "otlp=http://127.0.0.1:$port" \
	>"$share/lazy.err" 2>&1 &
rec=$!
until_ok 300 sh -c "lfr status -m | grep -q state=running" ||
	{ echo "export: FAILED: the recording did not start"; fail=1; }
if grep -q libcurl /proc/$rec/maps; then
	echo "export: FAILED: libcurl loaded before the first upload"
	fail=1
else
	echo "export: libcurl not loaded while the first chunk is open"
fi
spin 1 # samples, so that the chunk makes a request
reqs=$(ls /tmp/sink2 | grep -c '^req-.*body$')
kill $rec
wait $rec
[ "$(st $repo otlp sent_chunks)" = 1 ] && [ "$(ls /tmp/sink2 | grep -c '^req-.*body$')" -gt "$reqs" ] ||
	{ echo "export: FAILED: the lazily loaded libcurl did not deliver the chunk"; cat "$share/lazy.err"; fail=1; }
kill $sink
wait 2>/dev/null
exit $fail
