// SPDX-License-Identifier: GPL-2.0
//
// Reads recordings written by gen_recording with jdk.jfr.consumer.RecordingFile and checks exact
// content.  Run as a single-file program (JDK 11+):
//
//   java ReadRecording.java basic FILE          the "basic" recording, checked event by event
//   java ReadRecording.java samples FILE N      N samples with known stacks, in time order
//   java ReadRecording.java cputime FILE N LOST N samples as jdk.CPUTimeSample and
//                                               jdk.ExecutionSample, LOST in jdk.CPUTimeSamplesLost
//   java ReadRecording.java schema FILE         prints the declaration of the CPU time events
//   java ReadRecording.java fields FILE         prints the fields of every jdk.* event type as JMC
//                                               tells two declarations apart: "TYPE FIELD..."
//
// Prints "ok: ..." and exits 0, or prints what differs and exits 1.

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;
import jdk.jfr.AnnotationElement;
import jdk.jfr.EventType;
import jdk.jfr.SettingDescriptor;
import jdk.jfr.ValueDescriptor;

public class ReadRecording {
    static int failures;

    static void check(boolean ok, String what) {
        if (!ok) {
            failures++;
            if (failures <= 20) {
                System.out.println("FAIL: " + what);
            }
        }
    }

    static String frames(RecordedStackTrace st) {
        if (st == null) {
            return "<no stack>";
        }
        StringBuilder sb = new StringBuilder();
        for (RecordedFrame f : st.getFrames()) {
            if (sb.length() > 0) {
                sb.append(" <- ");
            }
            sb.append(f.getMethod().getType().getName()).append('`').append(f.getMethod().getName())
              .append(" [").append(f.getType()).append(']');
        }
        if (st.isTruncated()) {
            sb.append(" ...");
        }
        return sb.toString();
    }

    static final Map<String, String> STACKS = Map.of(
        "worker-1", "gen_workload`leaf [Native] <- gen_workload`b [Native] <- gen_workload`a [Native]"
            + " <- gen_workload`main [Native]",
        "worker-2", "libstdc++.so.6`std::vector<int>::push_back(int const&) [C++] <- gen_workload`a [Native]"
            + " <- gen_workload`main [Native]",
        "gen_workload", "kernel`ksys_read [Kernel] <- kernel`entry_SYSCALL_64 [Kernel]"
            + " <- libc.so.6`read [Native] <- gen_workload`main [Native] ...");
    static final Map<String, Long> TIDS = Map.of("worker-1", 1001L, "worker-2", 1002L, "gen_workload", 1000L);

    static List<RecordedEvent> read(String file) throws Exception {
        List<RecordedEvent> events = new ArrayList<>();
        try (RecordingFile rf = new RecordingFile(Path.of(file))) {
            while (rf.hasMoreEvents()) {
                events.add(rf.readEvent());
            }
        }
        return events;
    }

    /* Samples: known thread, the stack that thread always has (or a libdeep.so stack), time order. */
    static int checkSamples(List<RecordedEvent> events, boolean exactSpacing) {
        int n = 0;
        Instant last = null;
        for (RecordedEvent e : events) {
            if (!e.getEventType().getName().equals("jdk.ExecutionSample")) {
                continue;
            }
            RecordedThread t = e.getThread("sampledThread");
            String name = t == null ? null : t.getOSName();
            check(name != null && TIDS.containsKey(name), "sample thread " + name);
            if (name == null || !TIDS.containsKey(name)) {
                continue;
            }
            check(t.getOSThreadId() == TIDS.get(name), name + " osThreadId " + t.getOSThreadId());
            // JMC shows a thread by its javaThreadId, the JDK prints one that has it by its javaName
            check(name.equals(t.getJavaName()), name + " javaName " + t.getJavaName());
            check(t.getJavaThreadId() == TIDS.get(name), name + " javaThreadId " + t.getJavaThreadId());
            String got = frames(e.getStackTrace());
            if (got.startsWith("libdeep.so`")) {
                check(e.getStackTrace().getFrames().size() == 40, "deep stack depth");
            } else {
                check(got.equals(STACKS.get(name)), name + " stack: " + got);
                String state = e.getValue("state");
                check(state.equals("STATE_DEFAULT"), name + " state " + state);
            }
            Instant ts = e.getStartTime();
            if (last != null) {
                check(!ts.isBefore(last), "time order: " + ts + " after " + last);
                if (exactSpacing) {
                    check(Duration.between(last, ts).toNanos() == 1_000_000, "1 ms between samples: "
                          + Duration.between(last, ts));
                }
            }
            last = ts;
            n++;
        }
        return n;
    }

    static Map<String, Integer> counts(List<RecordedEvent> events) {
        Map<String, Integer> m = new TreeMap<>();
        for (RecordedEvent e : events) {
            m.merge(e.getEventType().getName(), 1, Integer::sum);
        }
        return m;
    }

    static String annotations(List<AnnotationElement> list) {
        List<String> out = new ArrayList<>();
        for (AnnotationElement a : list) {
            Object v = a.getValues().isEmpty() ? "" : a.getValues().get(0);
            out.add("@" + a.getTypeName() + "(" + (v instanceof String[] ? String.join("/", (String[]) v) : v) + ")");
        }
        out.sort(null); // the order of annotations carries no meaning
        return String.join(" ", out);
    }

    // The declaration of the CPU time events as the JDK's API sees it: fields in order with their
    // types and annotations, settings in order with their types and default values.
    static void schema(String file) throws Exception {
        try (RecordingFile f = new RecordingFile(Path.of(file))) {
            for (String name : List.of("jdk.CPUTimeSample", "jdk.CPUTimeSamplesLost")) {
                boolean found = false;
                for (EventType t : f.readEventTypes()) {
                    if (!t.getName().equals(name)) {
                        continue;
                    }
                    found = true;
                    List<AnnotationElement> ann = new ArrayList<>();
                    for (AnnotationElement a : t.getAnnotationElements()) {
                        if (!a.getTypeName().equals("jdk.jfr.Name")) { // implied by the name
                            ann.add(a);
                        }
                    }
                    System.out.println("event " + name + " " + annotations(ann));
                    for (ValueDescriptor v : t.getFields()) {
                        System.out.println("  field " + v.getName() + " " + v.getTypeName()
                                           + (v.isArray() ? "[]" : "") + " " + annotations(v.getAnnotationElements()));
                    }
                    for (SettingDescriptor s : t.getSettingDescriptors()) {
                        System.out.println("  setting " + s.getName() + " " + s.getTypeName() + " " + s.getDefaultValue());
                    }
                    break;
                }
                if (!found) {
                    System.out.println("event " + name + " missing");
                }
            }
        }
    }

    // A field as JMC matches two declarations of one event type (its name, type and the annotations
    // that make its unit; labels and descriptions are text): "name:type[] @ann(value)...", and the
    // fields of a struct type within braces.
    static String field(ValueDescriptor v, int depth) {
        List<AnnotationElement> units = new ArrayList<>();
        for (AnnotationElement a : v.getAnnotationElements()) {
            if (!a.getTypeName().equals("jdk.jfr.Label") && !a.getTypeName().equals("jdk.jfr.Description")) {
                units.add(a);
            }
        }
        StringBuilder sb = new StringBuilder(v.getName() + ":" + v.getTypeName() + (v.isArray() ? "[]" : ""));
        if (!units.isEmpty()) {
            sb.append(' ').append(annotations(units));
        }
        if (depth < 2 && !v.getFields().isEmpty()) {
            List<String> sub = new ArrayList<>();
            for (ValueDescriptor f : v.getFields()) {
                sub.add(field(f, depth + 1));
            }
            sb.append(" {").append(String.join(", ", sub)).append('}');
        }
        return sb.toString();
    }

    static void fields(String file) throws Exception {
        try (RecordingFile f = new RecordingFile(Path.of(file))) {
            Map<String, String> out = new TreeMap<>();
            for (EventType t : f.readEventTypes()) {
                if (t.getName().startsWith("jdk.")) {
                    List<String> fs = new ArrayList<>();
                    for (ValueDescriptor v : t.getFields()) {
                        fs.add(field(v, 0));
                    }
                    out.put(t.getName(), String.join("; ", fs));
                }
            }
            out.forEach((k, v) -> System.out.println(k + "\t" + v));
        }
    }

    static void cputime(List<RecordedEvent> events, int want, long wantLost) {
        Map<String, Integer> cts = new TreeMap<>(), es = new TreeMap<>();
        long lost = 0;
        Map<String, String> settings = new TreeMap<>();
        for (RecordedEvent e : events) {
            String type = e.getEventType().getName();
            if (type.equals("jdk.CPUTimeSample")) {
                String t = e.getThread("eventThread").getOSName();
                check(frames(e.getStackTrace()).equals(STACKS.get(t)), "CPUTimeSample stack of " + t + ": " + frames(e.getStackTrace()));
                check(!e.getBoolean("failed") && !e.getBoolean("biased"), "failed/biased");
                check(e.getDuration("samplingPeriod").toNanos() == 1000000, "samplingPeriod " + e.getDuration("samplingPeriod"));
                cts.merge(e.getStartTime() + " " + t, 1, Integer::sum);
            } else if (type.equals("jdk.ExecutionSample")) {
                es.merge(e.getStartTime() + " " + e.getThread("sampledThread").getOSName(), 1, Integer::sum);
            } else if (type.equals("jdk.CPUTimeSamplesLost")) {
                check(e.getThread("eventThread").getOSName().equals("worker-1"), "lost samples thread");
                lost += e.getInt("lostSamples");
            } else if (type.equals("jdk.ActiveSetting")) {
                settings.put(e.getLong("id") + "." + e.getString("name"), e.getString("value"));
            }
        }
        int n = cts.values().stream().mapToInt(Integer::intValue).sum();
        check(n == want, want + " CPUTimeSample, got " + n);
        check(cts.equals(es), "every CPUTimeSample has its ExecutionSample (time and thread)");
        check(lost == wantLost, "lost samples " + lost + ", want " + wantLost);
        long ctsId = -1, esId = -1;
        for (RecordedEvent e : events) {
            if (e.getEventType().getName().equals("jdk.CPUTimeSample")) {
                ctsId = e.getEventType().getId();
            } else if (e.getEventType().getName().equals("jdk.ExecutionSample")) {
                esId = e.getEventType().getId();
            }
        }
        check("true".equals(settings.get(ctsId + ".enabled")) && "1ms".equals(settings.get(ctsId + ".throttle")),
              "CPUTimeSample settings " + settings);
        check("true".equals(settings.get(esId + ".enabled")) && "1 ms".equals(settings.get(esId + ".period"))
              && "127".equals(settings.get(esId + ".stackDepth")) && "pid 1000".equals(settings.get(esId + ".targets")),
              "ExecutionSample settings " + settings);
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 2 && args[0].equals("schema")) {
            schema(args[1]);
            return;
        }
        if (args.length == 2 && args[0].equals("fields")) {
            fields(args[1]);
            return;
        }
        if (args.length < 2) {
            System.out.println("usage: java ReadRecording.java basic FILE | samples FILE N");
            System.exit(2);
        }
        List<RecordedEvent> events = read(args[1]);
        Map<String, Integer> c = counts(events);
        if (args[0].equals("basic")) {
            int n = checkSamples(events, true);
            check(n == 300, "300 samples, got " + n);
            check(c.getOrDefault("jdk.ThreadStart", 0) == 3, "3 ThreadStart: " + c);
            check(c.getOrDefault("jdk.ThreadEnd", 0) == 1, "1 ThreadEnd: " + c);
            check(c.getOrDefault("jdk.OSInformation", 0) == 1, "1 OSInformation: " + c);
            check(c.getOrDefault("jdk.CPUInformation", 0) == 1, "1 CPUInformation: " + c);
            check(c.getOrDefault("jdk.ActiveRecording", 0) == 1, "1 ActiveRecording: " + c);
            check(c.getOrDefault("lfr.SamplerSettings", 0) == 1, "1 SamplerSettings: " + c);
            List<String> lost = new ArrayList<>();
            for (RecordedEvent e : events) {
                String type = e.getEventType().getName();
                if (type.equals("lfr.LostSamples")) {
                    lost.add(e.getString("reason") + ":" + e.getLong("count") + ":" + e.getLong("total"));
                } else if (type.equals("jdk.ThreadEnd")) {
                    check(e.getThread("thread").getOSName().equals("worker-2"), "ThreadEnd thread");
                } else if (type.equals("jdk.ThreadStart")) {
                    RecordedThread t = e.getThread("thread");
                    RecordedThread p = e.getThread("parentThread");
                    check(t.getOSName().equals("gen_workload") ? p == null : p.getOSName().equals("gen_workload"),
                          "ThreadStart parent of " + t.getOSName());
                    check(t.getThreadGroup().getName().equals("gen_workload [1000]"),
                          "thread group " + t.getThreadGroup().getName());
                } else if (type.equals("lfr.SamplerSettings")) {
                    check(e.getDuration("periodNanos").toNanos() == 1001001, "periodNanos");
                    check(e.getInt("maxDepth") == 127 && e.getBoolean("kernelStacks"), "settings");
                    check(e.getString("target").equals("pid 1000"), "target");
                } else if (type.equals("jdk.ActiveRecording")) {
                    check(e.getString("name").equals("lfr"), "recording name");
                }
            }
            check(lost.equals(List.of("ring full:5:5", "ring full:2:7", "no slot:1:1")), "lost samples " + lost);
        } else if (args[0].equals("cputime") && args.length > 3) {
            cputime(events, Integer.parseInt(args[2]), Long.parseLong(args[3]));
            int n = checkSamples(events, false);
            check(n == Integer.parseInt(args[2]), "ExecutionSample count " + n);
        } else if (args[0].equals("samples") && args.length > 2) {
            int want = Integer.parseInt(args[2]);
            int n = checkSamples(events, false);
            check(n == want, want + " samples, got " + n);
        } else {
            System.out.println("unknown mode " + args[0]);
            System.exit(2);
        }
        if (failures > 0) {
            System.out.println(args[1] + ": " + failures + " failure(s)");
            System.exit(1);
        }
        System.out.println("ok: " + args[1] + " " + c);
    }
}
