# The demo itself, run as root where lfr.ko is loaded ($LFR_SHARE: where results go).
set -e
echo "demo: kernel $(uname -r), lfr.ko $(cat /sys/module/lfr/version) loaded"
echo "demo: lfr record -F 999 -k -o demo.jfr -- callgraph 3"
lfr record -F 999 -k -o "$LFR_SHARE/demo.jfr" -- callgraph 3 >/dev/null
