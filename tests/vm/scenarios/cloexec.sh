# The command `lfr record -- CMD` runs inherits no descriptor of lfr's (the netlink socket, /dev/lfr,
# the output file): only 0, 1 and 2.  When the recorder is killed with SIGKILL while CMD lives on,
# its socket is closed with it, so the kernel stops the session (the socket-close notifier), the
# session reaches STOPPED and rmmod succeeds while CMD still runs.
set -u
fail=0
field() { tr ' ' '\n' | sed -n "s/^$1=//p" | head -n 1; }
# CMD: writes its pid, then becomes `spin` (exec keeps the descriptors it inherited)
lfr record -F 999 -q -o "$LFR_SHARE/cloexec.jfr" -- sh -c 'echo $$ >cmd.pid; exec spin 600' &
rec=$!
for i in $(seq 300); do
	[ -s cmd.pid ] && lfr status -m | grep -q 'state=running' && break
	sleep 0.1
done
cmd=$(cat cmd.pid)
st=$(lfr status -m)
echo "cloexec: recorder $rec, command $cmd, session $(echo "$st" | field session) $(echo "$st" | field state)"
echo "$st" | grep -q 'state=running' || { echo "cloexec: FAILED: no session running"; fail=1; }
fds=$(ls /proc/$cmd/fd | sort -n | tr '\n' ' ')
echo "cloexec: descriptors of the command: $fds"
ls -l /proc/$cmd/fd
[ "$fds" = "0 1 2 " ] || { echo "cloexec: FAILED: the command inherited descriptors beyond 0 1 2"; fail=1; }

kill -9 $rec
wait $rec 2>/dev/null
# The recorder is reaped, so its files are closed: the notifier has already stopped the session.
st=$(lfr status -m)
state=$(echo "$st" | field state)
echo "cloexec: right after the recorder was reaped the session is $state"
[ "$state" = draining ] || [ "$state" = stopped ] || {
	echo "cloexec: FAILED: the session still runs after its recorder died"; fail=1; }
# The command spins in user space: its last walk runs at its next return from an interrupt.
# (a liveness bound, not a speed test: 30 s, however loaded the host running this VM is)
t0=$(cut -d' ' -f1 /proc/uptime)
for i in $(seq 300); do
	state=$(lfr status -m | field state)
	[ "$state" = stopped ] && break
	sleep 0.1
done
echo "cloexec: the session is $state after $(awk -v a="$t0" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { printf "%.1f", b - a }') s"
[ "$state" = stopped ] || { echo "cloexec: FAILED: the session did not stop within 30 s"; fail=1; }
[ -d /proc/$cmd ] || { echo "cloexec: FAILED: the command died with the recorder"; fail=1; }
# the session drops its module reference just after it is stopped (after an RCU tasks
# grace period: Documentation/kernel.md); then nothing holds the module
for i in $(seq 600); do [ "$(cat /sys/module/lfr/refcnt 2>/dev/null)" = 0 ] && break; sleep 0.1; done
rmmod lfr 2>err.txt
if grep -q '^lfr ' /proc/modules; then
	echo "cloexec: FAILED: rmmod with the command alive: $(cat err.txt)"; fail=1
else
	echo "cloexec: rmmod with the command alive: ok"
fi
kill $cmd
insmod /lib/lfr/lfr.ko || { echo "cloexec: FAILED: insmod"; fail=1; }
[ $fail = 0 ] && echo "cloexec: ok"
exit $fail
