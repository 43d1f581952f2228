// A small multi-threaded Java program with distinct, recognizable hot methods, used to produce
// JVM-written JFR recordings for the lfr report tests.
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

public class Workload {
    static volatile long sink;

    static long fib(int n) {
        return n < 2 ? n : fib(n - 1) + fib(n - 2);
    }

    static void computeFib(long deadline) {
        while (System.nanoTime() < deadline)
            sink += fib(24);
    }

    static void hashLoop(long deadline) throws Exception {
        MessageDigest md = MessageDigest.getInstance("SHA-256");
        byte[] buf = new byte[4096];
        while (System.nanoTime() < deadline) {
            md.update(buf);
            buf[0] = md.digest()[0];
        }
    }

    static void mapChurn(long deadline) {
        Map<Integer, String> map = new HashMap<>();
        int i = 0;
        while (System.nanoTime() < deadline) {
            map.put(i % 50000, Integer.toString(i));
            if (map.size() > 40000)
                map.clear();
            i++;
        }
        sink += map.size();
    }

    // Blocks in a native read of a pipe (sampled by jdk.NativeMethodSample) until the deadline.
    static void pipeReader(long deadline) {
        long secs = Math.max(1, (deadline - System.nanoTime()) / 1000000000L);
        try {
            Process p = new ProcessBuilder("sleep", Long.toString(secs)).start();
            while (p.getInputStream().read() >= 0)
                ;
            p.waitFor();
        } catch (Exception e) {
            throw new RuntimeException(e);
        }
    }

    static void sortLists(long deadline) {
        java.util.Random r = new java.util.Random(1);
        while (System.nanoTime() < deadline) {
            List<Integer> l = new ArrayList<>();
            for (int i = 0; i < 20000; i++)
                l.add(r.nextInt());
            l.sort(null);
            sink += l.get(0);
        }
    }

    public static void main(String[] args) throws Exception {
        double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 4;
        long deadline = System.nanoTime() + (long) (seconds * 1e9);
        Thread[] ts = {
            new Thread(() -> computeFib(deadline), "fib-worker"),
            new Thread(() -> { try { hashLoop(deadline); } catch (Exception e) { throw new RuntimeException(e); } }, "hash-worker"),
            new Thread(() -> mapChurn(deadline), "map-worker"),
            new Thread(() -> pipeReader(deadline), "pipe-reader"),
        };
        for (Thread t : ts)
            t.start();
        sortLists(deadline);
        for (Thread t : ts)
            t.join();
    }
}
