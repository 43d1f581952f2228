// SPDX-License-Identifier: GPL-2.0
//
// One timeline with the JVM: a JVM's own recording and lfr's recording of the same JVM, joined by
// lfr merge (JFR files are sequences of chunks; lfr's are rebased onto the first chunk's clock),
// read as one by jdk.jfr.consumer.RecordingFile.
// Run as a single-file program (JDK 17+):
//
//   java OneTimeline.java BOTH.jfr JVM.jfr LFR.jfr THREAD TID
//
// Checks: BOTH holds exactly the events of JVM and LFR, each at the instant its own file gives it
// (lfr's threads have no Java thread id);
// every lfr sample of THREAD lies within the JVM recording's time range (its chunk headers'
// start and duration); lfr's samples of THREAD and the JVM's own events of that Java thread name
// one and the same OS thread, TID.  Prints "ok: ..." and exits 0, or what differs and exits 1.

import java.io.RandomAccessFile;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

public class OneTimeline {
    static int failures;

    static void check(boolean ok, String what) {
        if (!ok) {
            failures++;
            System.out.println("FAIL: " + what);
        }
    }

    static List<RecordedEvent> read(String file) throws Exception {
        List<RecordedEvent> events = new ArrayList<>();
        try (RecordingFile rf = new RecordingFile(Path.of(file))) {
            while (rf.hasMoreEvents()) {
                events.add(rf.readEvent());
            }
        }
        return events;
    }

    /* [first chunk's start, last chunk's end] of a file, from the chunk headers (epoch ns). */
    static long[] span(String file) throws Exception {
        long lo = Long.MAX_VALUE, hi = Long.MIN_VALUE;
        try (RandomAccessFile f = new RandomAccessFile(file, "r")) {
            for (long at = 0; at + 68 <= f.length();) {
                f.seek(at);
                check(f.readInt() == 0x464c5200, file + ": no chunk at " + at);
                f.readInt(); // version
                long size = f.readLong();
                f.readLong(); // constant pools
                f.readLong(); // metadata
                long start = f.readLong(), duration = f.readLong();
                lo = Math.min(lo, start);
                hi = Math.max(hi, start + duration);
                if (size <= 0) {
                    break;
                }
                at += size;
            }
        }
        return new long[] {lo, hi};
    }

    static long ns(Instant t) {
        return t.getEpochSecond() * 1_000_000_000L + t.getNano();
    }

    static RecordedThread thread(RecordedEvent e) {
        if (e.hasField("sampledThread")) {
            return e.getValue("sampledThread");
        }
        return e.getThread();
    }

    static boolean isSample(RecordedEvent e) {
        return e.getEventType().getName().equals("jdk.ExecutionSample");
    }

    public static void main(String[] args) throws Exception {
        String name = args[3];
        long tid = Long.parseLong(args[4]);
        List<RecordedEvent> both = read(args[0]), jvm = read(args[1]), lfr = read(args[2]);
        long[] range = span(args[1]);

        check(both.size() == jvm.size() + lfr.size(), "BOTH has " + both.size() + " events, JVM "
            + jvm.size() + " + LFR " + lfr.size());
        long lfrSamples = 0, jvmSamples = 0, inRange = 0, worker = 0, same = 0, sameTime = 0;
        TreeSet<Long> shifts = new TreeSet<>();
        long first = Long.MAX_VALUE, last = Long.MIN_VALUE;
        TreeSet<Long> lfrTids = new TreeSet<>(), jvmTids = new TreeSet<>();
        // RecordingFile reads a file's chunks in order: the JVM's events, then lfr's
        for (int i = 0; i < both.size(); i++) {
            RecordedEvent e = both.get(i);
            boolean fromLfr = i >= jvm.size();
            RecordedEvent alone = fromLfr ? (i - jvm.size() < lfr.size() ? lfr.get(i - jvm.size()) : null)
                : jvm.get(i);
            if (alone != null && alone.getEventType().getName().equals(e.getEventType().getName())) {
                same++;
                if (alone.getStartTime().equals(e.getStartTime())) {
                    sameTime++;
                } else {
                    shifts.add(ns(e.getStartTime()) - ns(alone.getStartTime()));
                }
            }
            RecordedThread t = thread(e);
            if (isSample(e)) {
                if (fromLfr) {
                    lfrSamples++;
                } else {
                    jvmSamples++;
                }
            }
            if (t == null) {
                continue;
            }
            if (!fromLfr && name.equals(t.getJavaName())) {
                jvmTids.add(t.getOSThreadId());
            }
            if (fromLfr && isSample(e) && name.equals(t.getOSName())) {
                long at = ns(alone.getStartTime()); // where lfr's own chunk header puts it
                worker++;
                lfrTids.add(t.getOSThreadId());
                first = Math.min(first, at);
                last = Math.max(last, at);
                if (at >= range[0] && at <= range[1]) {
                    inRange++;
                }
            }
        }
        check(same == both.size(), (both.size() - same) + " events of BOTH differ from JVM's and LFR's");
        // The JVM counts ticks from its own start, lfr from boot.  JDK 17 converts each chunk's
        // ticks with its own header, JDK 25 every chunk's with the first one's: lfr merge rebased
        // lfr's ticks onto the JVM's, so that no event moves with either.
        int feature = Runtime.version().feature();
        String moved = sameTime == both.size() ? "none"
            : shifts.size() == 1 ? String.format("all by %+.6f s", shifts.first() / 1e9)
            : shifts.size() + " different shifts";
        check(sameTime == both.size(), "times of BOTH differ from JVM's and LFR's: " + moved);
        long lfrAlone = lfr.stream().filter(OneTimeline::isSample).count();
        long jvmAlone = jvm.stream().filter(OneTimeline::isSample).count();
        check(lfrSamples == lfrAlone, "lfr samples in BOTH " + lfrSamples + ", in LFR " + lfrAlone);
        check(jvmSamples == jvmAlone, "JVM samples in BOTH " + jvmSamples + ", in JVM " + jvmAlone);
        check(worker > 0, "no lfr sample of " + name);
        check(inRange == worker, (worker - inRange) + " of " + worker + " lfr samples of " + name
            + " outside the JVM recording [" + Instant.ofEpochSecond(0, range[0]) + ", "
            + Instant.ofEpochSecond(0, range[1]) + "]");
        check(lfrTids.equals(new TreeSet<>(List.of(tid))),
            "lfr's " + name + " is OS thread " + lfrTids + ", the workload said " + tid);
        check(jvmTids.equals(new TreeSet<>(List.of(tid))),
            "the JVM's " + name + " is OS thread " + jvmTids + ", the workload said " + tid);
        System.out.printf("%s: JDK %d: %d events (JVM %d, lfr %d); samples JVM %d, lfr %d; lfr's moved: %s;"
            + " JVM recording %s .. %s; lfr samples of %s %s .. %s, %d of %d inside; OS thread lfr %s, JVM %s,"
            + " workload %d%n", failures == 0 ? "ok" : "FAILED", feature, both.size(), jvm.size(), lfr.size(), jvmSamples, lfrSamples, moved,
            Instant.ofEpochSecond(0, range[0]), Instant.ofEpochSecond(0, range[1]), name,
            worker > 0 ? Instant.ofEpochSecond(0, first) : "-", worker > 0 ? Instant.ofEpochSecond(0, last) : "-",
            inRange, worker, lfrTids, jvmTids, tid);
        System.exit(failures == 0 ? 0 : 1);
    }
}
