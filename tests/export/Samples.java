// SPDX-License-Identifier: GPL-2.0
// The samples of JFR files as the JDK reads them (jdk.jfr.consumer), for tests/export: one line
// per sample event, "FILE TYPE PID EPOCH_NS DURATION_NS NAME" (the process and its name from
// lfr's thread group, "NAME [PID]"), "period FILE NS" per lfr.SamplerSettings, and "context FILE
// PID TID EPOCH_NS TRACE_ID SPAN_ID ATTRIBUTES" per lfr.TraceContext.  An independent reading of
// what the backends must have got.
//   java Samples.java FILE...
import java.nio.file.Path;
import java.time.Instant;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedObject;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

public class Samples {
    static String name(RecordedThread t) {
        String g = t == null || t.getThreadGroup() == null ? null : t.getThreadGroup().getName();
        return g == null || g.lastIndexOf(" [") < 0 ? "?" : g.substring(0, g.lastIndexOf(" ["));
    }

    static long pid(RecordedThread t) {
        String g = t == null || t.getThreadGroup() == null ? null : t.getThreadGroup().getName();
        if (g == null || !g.endsWith("]") || g.lastIndexOf(" [") < 0)
            return -1;
        return Long.parseLong(g.substring(g.lastIndexOf(" [") + 2, g.length() - 1));
    }

    public static void main(String[] args) throws Exception {
        StringBuilder out = new StringBuilder();
        for (String f : args) {
            try (RecordingFile r = new RecordingFile(Path.of(f))) {
                while (r.hasMoreEvents()) {
                    RecordedEvent e = r.readEvent();
                    String type = e.getEventType().getName();
                    if (type.equals("lfr.TraceContext")) {
                        RecordedThread t = e.getThread("sampledThread");
                        RecordedObject c = e.getValue("context");
                        Instant at = e.getStartTime();
                        out.append("context ").append(f).append(' ').append(pid(t)).append(' ')
                           .append(t.getOSThreadId()).append(' ')
                           .append(at.getEpochSecond() * 1_000_000_000L + at.getNano()).append(' ')
                           .append(c.getString("traceId")).append(' ').append(c.getString("spanId"))
                           .append(' ').append(c.getString("attributes")).append('\n');
                        continue;
                    }
                    if (type.equals("lfr.SamplerSettings")) {
                        out.append("period ").append(f).append(' ').append(e.getLong("periodNanos")).append('\n');
                        continue;
                    }
                    boolean sample = type.equals("jdk.ExecutionSample") || type.equals("profiler.WallClockSample")
                        || type.equals("jdk.NativeMethodSample");
                    if (!sample && !type.equals("lfr.OffCpu"))
                        continue;
                    RecordedThread t = e.getThread(sample ? "sampledThread" : "eventThread");
                    Instant at = e.getStartTime();
                    long ns = at.getEpochSecond() * 1_000_000_000L + at.getNano();
                    long dur = sample ? 0 : e.getDuration().toNanos();
                    out.append(f).append(' ').append(type).append(' ').append(pid(t)).append(' ')
                       .append(ns).append(' ').append(dur).append(' ').append(name(t)).append('\n');
                }
            }
        }
        System.out.print(out);
    }
}
