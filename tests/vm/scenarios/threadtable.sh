# A full thread table (--max-threads) in per-task mode: threads that get no slot have no CPU-time
# budget, so they are not sampled and nothing pretends otherwise: their switches are counted
# (switch_no_slot), not made-up ticks and losses, and the accounting identity stays exact.
set -u
share=${LFR_SHARE:-/tmp}
fail=0
field() { tr ' ' '\n' | sed -n "s/^$1=//p" | head -n 1; }
lfr raw -F 999 --max-threads 16 -q -o "$share/threadtable.txt" -- manythreads 40 2 >/dev/null
rc=$?
st=$(lfr status -m)
echo "threadtable: exit $rc: ticks_matched=$(echo "$st" | field ticks_matched) ticks_committed=$(echo "$st" | field ticks_committed) switch_no_slot=$(echo "$st" | field switch_no_slot) lost_no_thread_slot=$(echo "$st" | field lost_no_thread_slot) threads=$(echo "$st" | field threads)"
grep -E '^check ticks_identity' "$share/threadtable.txt"
[ $rc = 0 ] || { echo "threadtable: FAILED: lfr raw exited $rc"; fail=1; }
[ "$(echo "$st" | field switch_no_slot)" -gt 0 ] 2>/dev/null || { echo "threadtable: FAILED: no switch without a slot counted"; fail=1; }
[ "$(echo "$st" | field lost_no_thread_slot)" = 0 ] || { echo "threadtable: FAILED: switches counted as lost ticks"; fail=1; }
[ $fail = 0 ] && echo "threadtable: ok"
exit $fail
