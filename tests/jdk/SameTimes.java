// SPDX-License-Identifier: GPL-2.0
//
// Whether a file made of other recordings (lfr merge, or cat) places every event where each of
// them, read alone, does.  Run as a single-file program (JDK 17+):
//
//   java SameTimes.java JOINED PART...
//
// JOINED must hold the events of every PART, in that order (jdk.jfr.consumer.RecordingFile reads
// chunks in file order), each with the same type, start time and end time to the nanosecond, and
// the same stack: its methods and their frame types (which every chunk names by its own keys).
// Prints "ok: ..." and exits 0, or what differs and exits 1.

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;

public class SameTimes {
    static List<RecordedEvent> read(String file) throws Exception {
        List<RecordedEvent> events = new ArrayList<>();
        try (RecordingFile rf = new RecordingFile(Path.of(file))) {
            while (rf.hasMoreEvents()) {
                events.add(rf.readEvent());
            }
        }
        return events;
    }

    static String stack(RecordedEvent e) {
        if (e.getStackTrace() == null) {
            return "";
        }
        StringBuilder sb = new StringBuilder();
        for (RecordedFrame f : e.getStackTrace().getFrames()) {
            sb.append(f.getMethod().getType().getName()).append('.').append(f.getMethod().getName())
              .append(" [").append(f.getType()).append("];");
        }
        return sb.toString();
    }

    public static void main(String[] args) throws Exception {
        List<RecordedEvent> joined = read(args[0]);
        List<RecordedEvent> parts = new ArrayList<>();
        StringBuilder counts = new StringBuilder();
        for (int i = 1; i < args.length; i++) {
            List<RecordedEvent> part = read(args[i]);
            parts.addAll(part);
            counts.append(i > 1 ? " + " : "").append(part.size());
        }
        int moved = 0, kinds = 0, stacks = 0;
        String example = "", stackExample = "";
        for (int i = 0; i < Math.min(joined.size(), parts.size()); i++) {
            RecordedEvent j = joined.get(i), p = parts.get(i);
            boolean sameType = j.getEventType().getName().equals(p.getEventType().getName());
            if (sameType && !stack(j).equals(stack(p)) && stacks++ == 0) {
                stackExample = String.format(" (event %d, %s: %s instead of %s)", i, j.getEventType().getName(),
                    stack(j), stack(p));
            }
            if (!sameType) {
                kinds++;
            } else if (!j.getStartTime().equals(p.getStartTime()) || !j.getEndTime().equals(p.getEndTime())) {
                if (moved++ == 0) {
                    example = String.format(" (event %d, %s, by %+.6f s)", i, j.getEventType().getName(),
                        Duration.between(p.getStartTime(), j.getStartTime()).toNanos() / 1e9);
                }
            }
        }
        boolean ok = joined.size() == parts.size() && kinds == 0 && moved == 0 && stacks == 0;
        System.out.printf("%s: JDK %d: %d events, parts %s; %d of another type, %d moved%s, %d with another stack%s%n",
            ok ? "ok" : "FAIL", Runtime.version().feature(), joined.size(), counts, kinds, moved, example,
            stacks, stackExample);
        System.exit(ok ? 0 : 1);
    }
}
