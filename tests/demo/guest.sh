# The demo itself, run as root where lfr.ko is loaded ($LFR_SHARE: where results go).
set -e
echo "demo: kernel $(uname -r), lfr.ko $(cat /sys/module/lfr/version) loaded"
grep '^lfr ' /proc/modules
lfr --version
