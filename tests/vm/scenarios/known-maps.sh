# Described executable ranges (kmod/mm_watch.c): a frame-pointer walk whose pcs all lie in mappings
# it has described needs neither the mapping lock nor a lookup, until a mapping of the process
# changes.  `remap` runs code from one file, unmaps it and maps another at the same address; the
# host check (known-maps.host) names every sample in that page by the mapping record in force at
# its time, and wants the second file's for every sample after the remap.  Here: most walks
# skipped the lookup (walk_known_maps), and a second MMAP record came for the new mapping; then
# again with the second file on another device, under the first one's inode number.
set -u
share=${LFR_SHARE:-/tmp}
fail=0
field() { tr ' ' '\n' | sed -n "s/^$1=//p" | head -n 1; }
lfr raw -F 999 -o "$share/known-maps.txt" -- remap /tmp 1 >"$share/remap.txt"
rc=$?
cat "$share/remap.txt"
st=$(lfr status -m | grep '^status ')
committed=$(echo "$st" | field samples_committed)
known=$(echo "$st" | field walk_known_maps)
echo "known-maps: lfr raw exit $rc: samples_committed=$committed walk_known_maps=$known records_mmap=$(echo "$st" | field records_mmap)"
[ $rc = 0 ] || { echo "known-maps: FAILED: lfr raw exited $rc"; fail=1; }
# Each walk after a lookup keeps its ranges: only the first walks of the phases (and a walk after
# a page invalidation, if any) look up.  Half is far below what the module does and far above 0.
if [ "${known:-0}" -eq 0 ] || [ $((known * 2)) -lt "${committed:-0}" ]; then
	echo "known-maps: FAILED: $known of $committed walks without a lookup"
	fail=1
fi
# The same remap with the two files on two tmpfs mounts made for it, where the first file of
# each gets the same inode number: only the device tells the mappings apart, and the second one
# must get its own MMAP record (known-maps.host checks the names the same way).
mkdir -p /tmp/kmaps-a /tmp/kmaps-b
mount -t tmpfs lfr-a /tmp/kmaps-a && mount -t tmpfs lfr-b /tmp/kmaps-b ||
	{ echo "known-maps: FAILED: tmpfs mounts"; exit 1; }
lfr raw -F 999 -o "$share/known-maps-dev.txt" -- remap /tmp/kmaps-a 1 /tmp/kmaps-b \
	>"$share/remap-dev.txt"
rc=$?
cat "$share/remap-dev.txt"
umount /tmp/kmaps-a /tmp/kmaps-b
[ $rc = 0 ] || { echo "known-maps: FAILED: lfr raw (two devices) exited $rc"; fail=1; }
ino=$(sed -n 's/.* a_ino=\([0-9]*\) a_dev=\([0-9]*\) b_ino=\([0-9]*\) b_dev=\([0-9]*\).*/\1 \2 \3 \4/p' \
	"$share/remap-dev.txt")
set -- $ino
if [ $# != 4 ] || [ "$1" != "$3" ] || [ "$2" = "$4" ]; then
	echo "known-maps: FAILED: the two files are not one inode number on two devices ($ino)"
	fail=1
fi
echo "known-maps: two devices: $(grep -c '^mmap .*remap-.\.bin' "$share/known-maps-dev.txt") MMAP records of the two files"
# Code in anonymous memory at more addresses than the symbolizer keeps as names (4 096,
# LFR_SYM_PC_NAMES): the first keep their addresses, later ones are [unknown], and the summary
# says how many; without the bound each address would stay in the recorder's tables for ever.
lfr record -F 4999 -o "$share/anon-code.jfr" -- remap --anon 8192 3 >"$share/anon-code.out" \
	2>"$share/anon-code.err"
rc=$?
cat "$share/anon-code.out" "$share/anon-code.err"
[ $rc = 0 ] || { echo "known-maps: FAILED: lfr record -- remap --anon exited $rc"; fail=1; }
kept=$(sed -n 's/.*frames in memory no file holds named \[unknown\]: \([0-9]*\) such.*/\1/p' \
	"$share/anon-code.err")
[ "$kept" = 4096 ] ||
	{ echo "known-maps: FAILED: no summary of 4096 addresses kept as names (${kept:-none})"; fail=1; }
# the file (frames by method name): at most 4 096 distinct addresses as names, and [unknown]
lfr report -f collapsed "$share/anon-code.jfr" | awk '{ $NF = ""; print }' | tr ';' '\n' |
	sed 's/ *$//' | sort -u >"$share/anon-code.names"
names=$(grep -c '^0x[0-9a-f]\{9,\}$' "$share/anon-code.names")
echo "known-maps: anonymous code: $names address names, $(grep -c '^\[unknown\]' "$share/anon-code.names") [unknown]"
if [ "$names" -gt 4096 ] || [ "$names" -lt 1000 ] || ! grep -q '^\[unknown\]' "$share/anon-code.names"; then
	echo "known-maps: FAILED: $names address names in the file, or no [unknown] frame"
	fail=1
fi
exit $fail
