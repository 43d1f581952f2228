# Java: `lfr record -- java` of a workload whose hottest method is known (tests/jdk/HotMethod.java),
# with the JVM's perf map written only at its exit (-XX:+DumpPerfMapAtExit) and the JVM's own
# recording running at the same time; once per JDK the guest has (17, and 25 when installed).
# java.host reads the files.
set -u
share=${LFR_SHARE:-/tmp}
fail=0
n=0
jdks="/usr/lib/jvm/java-17-openjdk-amd64 /usr/lib/jvm/temurin-25-jdk-amd64"
# The debug kernel runs a JVM about twice as slowly (3 min per JDK): JDK 17 alone there keeps
# make check in its time; the stock kernel runs both.
[ "${LFR_KERNEL:-stock}" = debug ] && jdks=/usr/lib/jvm/java-17-openjdk-amd64
for jdk in $jdks; do
	[ -x "$jdk/bin/java" ] || continue
	v=$("$jdk/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')
	echo "java: JDK $v at $jdk"
	n=$((n + 1))
	# JIT compiled frames need frame pointers (PreserveFramePointer); C1 alone starts fast under
	# emulation; hot stays out of line so that it is a frame of its own.
	lfr record -F 999 -o "$share/lfr-$v.jfr" -- "$jdk/bin/java" -Xmx256m -XX:TieredStopAtLevel=1 \
		-XX:+PreserveFramePointer -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit \
		-XX:CompileCommand=quiet -XX:CompileCommand=dontinline,HotMethod::hot \
		-XX:StartFlightRecording=filename="$share/jvm-$v.jfr" \
		-cp "$share" HotMethod 1 >"$share/out-$v.txt" 2>"$share/lfr-$v.err"
	rc=$?
	cat "$share/out-$v.txt" "$share/lfr-$v.err"
	[ $rc = 0 ] || { echo "java: FAILED: lfr record -- java (JDK $v) exited $rc"; fail=1; }
	grep -q '^thread hot-worker tid=' "$share/out-$v.txt" || { echo "java: FAILED: the workload did not run (JDK $v)"; fail=1; }
	# the map the JVM wrote at exit, for the host's look
	cp /tmp/perf-*.map "$share/" 2>/dev/null
	rm -f /tmp/perf-*.map
done
[ $n -gt 0 ] || { echo "java: FAILED: no JDK in the guest (tests/vm/run --jdk)"; fail=1; }
exit $fail
