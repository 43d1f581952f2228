// SPDX-License-Identifier: GPL-2.0
//
// A Java workload whose hottest method is known by construction: the thread "hot-worker" spends
// nearly all of its time in HotMethod.hot (kept out of line with
// -XX:CompileCommand=dontinline,HotMethod::hot so that it is a frame of its own) and a tenth of
// that in HotMethod.cold; main waits for it.  The worker runs for SECONDS of its own CPU time, not
// of the clock: on a slow or busy machine (an emulated debug kernel) it runs longer, with as many
// samples and its methods compiled all the same.  Prints each thread's name and tid (JFR's
// osThreadId), the process id and the sum (so that nothing is optimized away).
//
//   java HotMethod SECONDS

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;

public class HotMethod {
    static volatile long sink;

    static long hot(long x) {
        for (int i = 0; i < 1_000_000; i++) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
        }
        return x;
    }

    static long cold(long x) {
        for (int i = 0; i < 100_000; i++) {
            x = x * 6364136223846793005L + 1442695040888963407L;
        }
        return x;
    }

    /* "PID/task/TID": the kernel's id of the calling thread. */
    static String tid() throws Exception {
        String self = Files.readSymbolicLink(Path.of("/proc/thread-self")).toString();
        return self.substring(self.lastIndexOf('/') + 1);
    }

    public static void main(String[] args) throws Exception {
        long seconds = args.length > 0 ? Long.parseLong(args[0]) : 5;
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        Thread worker = new Thread(() -> {
            try {
                System.out.println("thread hot-worker tid=" + tid());
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
            long x = 88172645463325252L;
            long end = mx.getCurrentThreadCpuTime() + seconds * 1_000_000_000L;
            while (mx.getCurrentThreadCpuTime() < end) {
                x = hot(x);
                x = cold(x);
            }
            sink = x;
        }, "hot-worker");
        System.out.println("thread main tid=" + tid() + " pid=" + ProcessHandle.current().pid());
        worker.start();
        worker.join();
        System.out.println("sum " + sink);
    }
}
