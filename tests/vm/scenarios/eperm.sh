# An unprivileged user (uid 65534) gets EPERM, with a hint naming CAP_PERFMON, for every command:
# START, STOP and STATUS, while a session started by root is running (so that a missing check
# could not hide behind "no session").  The root session must be untouched afterwards.
set -u
fail=0
as_nobody() {
	su -s /bin/sh nobody -c "$*" >out.txt 2>err.txt
	echo $?
}
lfr raw --detach -F 99 -a >root-session.txt || { echo "eperm: FAILED: root could not start a session"; exit 1; }
cat root-session.txt
id=$(sed -n 's/^session id=\([0-9]*\).*/\1/p' root-session.txt)
for cmd in "lfr status" "lfr status -m -S $id" "lfr stop" "lfr stop --no-wait -S $id" "lfr raw -a -d 1" \
	   "lfr raw -p 1 -d 1" "lfr raw --detach -F 999 -a"; do
	rc=$(as_nobody "$cmd")
	msg=$(head -n 1 err.txt)
	if [ "$rc" = 4 ] && grep -q 'Operation not permitted' err.txt && grep -q CAP_PERFMON err.txt; then
		echo "eperm: '$cmd' as uid $(su -s /bin/sh nobody -c 'id -u'): exit $rc: $msg"
	else
		echo "eperm: FAILED: '$cmd' as nobody: exit $rc"; cat out.txt err.txt; fail=1
	fi
done
# the session root started is still running and root can still control it
st=$(lfr status -m)
echo "$st" | cut -c1-120
case "$st" in *state=running*) ;; *) echo "eperm: FAILED: root's session is not running any more"; fail=1 ;; esac
lfr stop || { echo "eperm: FAILED: root could not stop its session"; fail=1; }
[ $fail = 0 ] && echo "eperm: ok"
exit $fail
