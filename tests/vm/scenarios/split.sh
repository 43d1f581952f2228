# The truth of the samples: `split` knows how its CPU time split between three functions (5:3:2 of
# work, measured by the workload itself in every run) and runs a 40-frame chain on a second thread.
# lfr records it at 999 and 4999 Hz (built by clang, every frame kept) and at 999 Hz built by gcc,
# whose leaves have no frame: their caller comes from the CFI (the leaf rule).  split.host compares
# each file's split with the truth of its run and checks every chain.
set -u
share=${LFR_SHARE:-/tmp}
secs=8 unit=200000
# The debug kernel's clock read costs 50 to 100 us, a tenth of a leaf's interval: the leaves work 4
# times longer there, so that the error of that read's subtracted cost weighs a quarter as much.
[ "${LFR_KERNEL:-stock}" = debug ] && secs=10 unit=800000
fail=0
run() { # NAME HZ PROGRAM
	lfr record -F "$2" -o "$share/$1.jfr" -- "$3" "$secs" 0 "$unit" >"$share/$1.txt" 2>"$share/$1.err"
	rc=$?
	cat "$share/$1.txt"
	grep -E 'samples|lost|tid ' "$share/$1.err"
	[ $rc = 0 ] || { echo "split: FAILED: lfr record -- $3 exited $rc"; cat "$share/$1.err"; fail=1; }
}
run split-999 999 split
run split-4999 4999 split
run split-gcc-999 999 split-gcc
exit $fail
