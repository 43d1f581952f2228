// SPDX-License-Identifier: GPL-2.0
//
// A thread named "w-" and U+1F600, a character outside the Basic Multilingual Plane, which
// HotSpot writes into its recording as a surrogate pair in modified UTF-8 (six bytes, not UTF-8's
// four), burns MILLIS of its own CPU time (not of the clock: a busy machine gets as many samples
// of it) while the recording samples it.
//
//   java ThreadName MILLIS

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

public class ThreadName {
    static volatile long sink;

    public static void main(String[] args) throws Exception {
        long cpuNanos = Long.parseLong(args[0]) * 1_000_000L;
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        Thread t = new Thread(() -> {
            long x = 0;
            while (mx.getCurrentThreadCpuTime() < cpuNanos)
                for (int i = 0; i < 100_000; i++)
                    x += i * 31L;
            sink = x;
        }, "w-\uD83D\uDE00");
        t.start();
        t.join();
    }
}
