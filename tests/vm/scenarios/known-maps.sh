# Described executable ranges (kmod/mm_watch.c): a frame-pointer walk whose pcs all lie in mappings
# it has described needs neither the mapping lock nor a lookup, until a mapping of the process
# changes.  `remap` runs code from one file, unmaps it and maps another at the same address; the
# host check (known-maps.host) names every sample in that page by the mapping record in force at
# its time, and wants the second file's for every sample after the remap.  Here: most walks
# skipped the lookup (walk_known_maps), and a second MMAP record came for the new mapping.
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
exit $fail
