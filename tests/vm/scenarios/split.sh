# The truth of the samples: `split` knows how its CPU time split between three functions (5:3:2 of
# work, measured by the workload itself in every run) and runs a 40-frame chain on a second thread.
# lfr records it at 999 and 4999 Hz (built by clang, every frame kept) and at 999 Hz built by gcc,
# whose leaves have no frame: their caller comes from the CFI (the leaf rule).  split.host compares
# each file's split with the truth of its run and checks every chain.
set -u
share=${LFR_SHARE:-/tmp}
secs=8 unit=200000
# In the clang runs the chain's thread spins for the loop's first 3 s of CPU time, then ends: every
# sample of it is checked, and the rest of the run leaves the second CPU idle (under -icount the two
# take turns: that halves the run's cost).  Not in the gcc run nor on the debug kernel: their
# leaves' intervals are ten and four times as long, and with the second CPU idle the recorder's
# bursts there (its turns on the one host thread) fall inside them whole, which the workload's stall
# correction then takes out of its truth although its CPU clock, and so every CPU-time profiler,
# counted them (gcc: a = 48.5 and 46.9 % against 50.1 raw and by lfr in two runs); with both CPUs
# busy the turns are even.
chain=3
# The debug kernel's clock read costs 50 to 100 us, a tenth of a leaf's interval: the leaves work 4
# times longer there, so that the error of that read's subtracted cost weighs a quarter as much.
[ "${LFR_KERNEL:-stock}" = debug ] && secs=10 unit=800000 chain=0
# arm64: the chain runs throughout (with the second CPU idle a sixth of the loop's intervals were
# stalled there, and the correction for them moved the truth by up to 1.7 points while lfr read the
# raw split to 0.1), and the same program without frame pointers is recorded too: its callers come
# from the unwind tables.
arch=$(uname -m)
[ "$arch" = aarch64 ] && chain=0
fail=0
run() { # NAME HZ PROGRAM CHAIN-SECONDS
	lfr record -F "$2" -o "$share/$1.jfr" -- "$3" "$secs" 0 "$unit" "$4" >"$share/$1.txt" 2>"$share/$1.err"
	rc=$?
	cat "$share/$1.txt"
	grep -E 'samples|lost|tid ' "$share/$1.err"
	[ $rc = 0 ] || { echo "split: FAILED: lfr record -- $3 exited $rc"; cat "$share/$1.err"; fail=1; }
}
run split-999 999 split $chain
run split-4999 4999 split $chain
run split-gcc-999 999 split-gcc 0
[ "$arch" = aarch64 ] && run split-nofp-999 999 split-nofp 0
exit $fail
