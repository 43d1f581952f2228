# New builds run one after another (a build or CI machine): `builds` writes 100 copies of itself,
# each another file with a build-id of its own, and runs each for 50 ms of CPU under `lfr record
# -a`.  Each copy is an object the recorder's symbolizer reads to name its frames; 30 s after its
# exit the recorder forgets the process, and the objects no process maps any more must go with
# them: its summary says how many object files it freed.  A sweep waits for 64 forgotten
# processes, some of them not copies (this script's own): at least 32 must be freed.  Before,
# every object ever read stayed for the recording's life (none freed).  The copies' frames are
# named.
set -u
fail=0
mkdir -p /tmp/builds
lfr record -a -F 999 -o "$LFR_SHARE/new-builds.jfr" 2>"$LFR_SHARE/record.err" &
rec=$!
for i in $(seq 300); do
	lfr status -m | grep -q 'state=running' && break
	sleep 0.1
done
builds /tmp/builds 100 50 || { echo "new-builds: FAILED: builds"; fail=1; }
# the recorder forgets a process 30 s after its exit (of the rings' time)
sleep 40
kill -INT $rec
wait $rec
rc=$?
cat "$LFR_SHARE/record.err"
[ $rc = 0 ] || { echo "new-builds: FAILED: lfr record exited $rc"; fail=1; }
freed=$(sed -n 's/^ *\([0-9]*\) object files no process mapped any more freed.*/\1/p' \
	"$LFR_SHARE/record.err")
echo "new-builds: object files freed: ${freed:-none}"
[ "${freed:-0}" -ge 32 ] || { echo "new-builds: FAILED: fewer than 32 object files freed"; fail=1; }
# the copies' own function, named in copies of many build-ids
named=$(lfr report -f collapsed -p build- "$LFR_SHARE/new-builds.jfr" | grep -c 'builds_burn')
echo "new-builds: stacks in builds_burn: $named"
[ "$named" -ge 50 ] || { echo "new-builds: FAILED: the copies' frames are not named"; fail=1; }
rm -rf /tmp/builds
[ $fail = 0 ] && echo "new-builds: ok"
exit $fail
