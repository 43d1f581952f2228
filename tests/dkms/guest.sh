# Runs in a kernel with the lfr.ko DKMS built for it (tests/vm/run --kernel K --module build/dkms/...).
set -e
echo "dkms-guest: lfr.ko $(cat /sys/module/lfr/version) loaded, sha256 $(sha256sum /lib/lfr/lfr.ko | cut -c1-16)"
[ "$(sha256sum /lib/lfr/lfr.ko | cut -d' ' -f1)" = "$1" ]
echo "dkms-guest: it is the DKMS-built module"
lfr record -F 499 -o "$LFR_SHARE/dkms.jfr" -- spin 1
