# lfr top in the guest, its output a file (so plain tables): `lfr top -n 3 -- split` in a session of
# its own, and `lfr top --repository -p` of a continuous recording running beside it.  split's second
# thread spins in chain40 (about half of the samples: the line of chain40 in split-chain comes first
# by self within the 3 refreshes); its first thread splits its time between split_a, split_b and
# split_c, each of which has its line, and each refresh of the session counts more samples than the
# one before.  Until its session's first samples lfr top shows no
# table; the repository is read once it has samples.
set -u
share=${LFR_SHARE:-/tmp}
fail=0
# check NAME: the tables of $share/NAME.txt
check() {
	local f=$share/$1.txt tables firsts
	tables=$(grep -c '^lfr top: ' "$f")
	firsts=$(awk '/^lfr top: /{t++; getline; getline; print t": "$0}' "$f")
	echo "$firsts"
	if [ "$tables" = 3 ] && echo "$firsts" | grep -q 'chain40 .*split-chain/'; then
		echo "top: $1: chain40 of split-chain on the first line in $(echo "$firsts" | grep 'chain40' | head -n 1 | cut -d: -f1) of 3 refreshes"
	else
		echo "top: FAILED: $1: $tables tables, chain40 of split-chain never on the first line"
		fail=1
	fi
	# the last table: split_a, split_b and split_c each on a line of split-loop.  Not their
	# order: a window of two seconds at the workload's start is no measure of its 5:3:2 split (on a
	# loaded host split_b came before split_a once); the split scenario checks that against the
	# workload's own clocks
	order=$(awk '/^lfr top: /{n = 0; o = ""} / split-loop\//{for (i = 1; i <= NF; i++) if ($i ~ /^split_[abc]$/) o = o $i " "} END {print o}' "$f")
	if [ "$(echo "$order" | tr ' ' '\n' | sort | tr '\n' ' ')" = " split_a split_b split_c " ]; then
		echo "top: $1: split-loop's lines: $order"
	else
		echo "top: FAILED: $1: split-loop's lines '$order', not one each of split_a, split_b, split_c"
		fail=1
	fi
	# lfr top's own session starts with it: its window only grows while the workload runs, each
	# table counts more samples than the last (a repository may be older than the window)
	counts=$(sed -n 's/^lfr top: .*: \([0-9]*\) samples in .*/\1/p' "$f" | tr '\n' ' ')
	if [ "$1" != session ] ||
		echo "$counts" | awk '{for (i = 2; i <= NF; i++) if ($i <= $(i - 1)) exit 1; exit NF < 2}'; then
		echo "top: $1: samples per refresh $counts"
	else
		echo "top: FAILED: $1: samples per refresh $counts do not grow"
		fail=1
	fi
}

lfr top -n 3 -l 12 -- split 60 >"$share/session.txt" 2>"$share/session.err"
rc=$?
cat "$share/session.txt"
if [ $rc = 0 ]; then
	check session
else
	echo "top: FAILED: lfr top -- split exited $rc"
	cat "$share/session.err"
	fail=1
fi

repo=/tmp/top-repo
lfr record -a -k -F 999 --chunk-age 1s --repository "$repo" >"$share/rec.out" 2>&1 &  # enough samples of split_c (a tenth)
rec=$!
split 60 >/dev/null &
sp=$!
# the repository's first samples of split (its first flush), waited for at most 60 s (a liveness
# bound).  The tables keep split's process only (-p): the recording has every thread of the
# machine, and with -k the kernel's lines could push split_c out of the 12 rows
for i in $(seq 120); do
	lfr top -n 1 -w 0 --repository "$repo" -p "$sp" 2>/dev/null | head -n 1 | grep -q ': [1-9][0-9]* samples' && break
	sleep 0.5
done
lfr top -n 3 -l 12 --repository "$repo" -p "$sp" >"$share/repo.txt" 2>"$share/repo.err"
rc=$?
cat "$share/repo.txt"
if [ $rc = 0 ]; then
	check repo
else
	echo "top: FAILED: lfr top --repository exited $rc"
	cat "$share/repo.err"
	fail=1
fi
kill "$sp"
kill -INT "$rec"
wait "$rec"
exit $fail
