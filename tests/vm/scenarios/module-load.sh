# lfr.ko loads and unloads cleanly, several times, and reports its version in sysfs.
set -e
want=$(cat /sys/module/lfr/version)
echo "module-load: lfr.ko version $want loaded on $(uname -r)"
for i in 1 2 3; do
	rmmod lfr
	! grep -q '^lfr ' /proc/modules
	insmod /lib/lfr/lfr.ko
	grep -q '^lfr ' /proc/modules
done
[ "$(cat /sys/module/lfr/version)" = "$want" ]
echo "module-load: 3 unload/load cycles ok"
