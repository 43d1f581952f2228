# The in-VM half of bench/soak: the service's recorder for MINUTES guest minutes while processes
# come and go (a two-thread deepstack for 1 s every 15 s; churn 50 8 every 10 minutes), one
# "soak" line a guest minute: the recorder's VmRSS and VmHWM (kB), its CPU (ns, the sum over
# /proc/PID/task/*/schedstat), its threads, the repository's size on disk (du) and chunk files, and the bytes
# lfr.ko holds in vmalloc (/proc/vmallocinfo); the recorder's resident memory by kind (kB, from
# /proc/PID/smaps): the main heap, the heaps of glibc's other arenas (the recorder's other
# threads allocate there: anonymous mappings aligned to their 64 MiB), other anonymous memory
# (blocks malloc maps apart, thread stacks), and files (its program and libraries).  Every 5
# minutes a copy of the smaps in $LFR_SHARE/smaps-MINUTE, when there is a share.
#   soak-guest.sh MINUTES "LFR RECORD OPTIONS"
set -u
minutes=$1 opts=$2
repo=/tmp/lfr-repo
cache=/var/cache/lfr/tables
mkdir -p /var/cache/lfr
rm -rf "$repo"
echo "soak: kernel $(uname -r), $(nproc) CPUs; lfr.ko $(cat /sys/module/lfr/version); lfr record -a --repository $repo --cache $cache $opts; $minutes minutes"
now_s() { awk '{ printf "%d\n", $1 }' /proc/uptime; }
sched_ns() { cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { printf "%.0f\n", s }'; }
status_kb() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"; }
# resident kB by kind: heap= arenas= anon= file=
mem_kinds() {
	awk '/^[0-9a-f]+-[0-9a-f]+ / {
		split($1, a, "-"); s = a[1]; n = length(s)
		if ($6 == "[heap]") kind = "heap"
		else if ($6 ~ /^\//) kind = "file"
		else if (n > 7 && substr(s, n - 5) == "000000" && index("048c", substr(s, n - 6, 1))) kind = "arenas"
		else kind = "anon"
		next
	}
	$1 == "Rss:" { kb[kind] += $2 }
	END { printf "heap_kb=%d arenas_kb=%d anon_kb=%d file_kb=%d\n", kb["heap"], kb["arenas"], kb["anon"], kb["file"] }' "/proc/$1/smaps"
}
# bytes of the module's vmalloc areas (their callers are lfr's functions, "[lfr]")
vmalloc_b() { awk '/\[lfr\]/ { s += $2 } END { printf "%.0f\n", s }' /proc/vmallocinfo; }

: >/tmp/soak-on
# processes that come and go; none of them is the recorder's
(
	n=0
	while [ -e /tmp/soak-on ]; do
		deepstack 24 1 2 >/dev/null 2>&1
		n=$((n + 1))
		if [ $((n % 40)) = 20 ]; then churn 50 8 >/dev/null 2>&1; fi
		[ -e /tmp/soak-on ] && sleep 14
	done
) &
work=$!
sleep 0.5
# shellcheck disable=SC2086
lfr record -a -q --repository "$repo" --cache "$cache" $opts 2>/tmp/rec.err &
rec=$!
t0=$(now_s)
for m in $(seq 0 "$minutes"); do
	left=$((t0 + m * 60 - $(now_s)))
	[ $left -gt 0 ] && sleep $left
	if ! kill -0 $rec 2>/dev/null; then
		echo "soak: the recorder is gone at minute $m"
		break
	fi
	echo "soak minute=$m rss_kb=$(status_kb $rec VmRSS) hwm_kb=$(status_kb $rec VmHWM) recorder_ns=$(sched_ns $rec) threads=$(ls /proc/$rec/task | wc -l) repo_kb=$(du -sk "$repo" | cut -f1) repo_files=$(ls "$repo" | grep -c "Z\.jfr$") vmalloc_bytes=$(vmalloc_b) $(mem_kinds $rec)"
	if [ -n "${LFR_SHARE:-}" ] && [ $((m % 5)) = 0 ]; then cp /proc/$rec/smaps "$LFR_SHARE/smaps-$m"; fi
done
rm -f /tmp/soak-on
kill -TERM $rec
wait $rec
echo "soak: recorder exit $?"
wait $work
[ -s /tmp/rec.err ] && sed 's/^/soak: lfr record said: /' /tmp/rec.err
echo "soak: done"
