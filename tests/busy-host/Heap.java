import java.io.FileWriter;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

/**
 * A JVM whose heap grows toward its -Xmx in the collector's steps and then
 * stays: planted as a non-leak control in the busy-host recording
 * (tests/busy-host/record.sh). It keeps 1 MiB more of live data each
 * second until the live set is 60% of the maximum heap, then replaces what
 * it keeps without adding, while it makes garbage all along. It keeps
 * 128 KiB arrays: G1 gives an array of half a region (1 MiB with this
 * heap) or more regions of its own, and 1 MiB arrays took two regions
 * each, which filled the heap at 50% live.
 *
 *     java -Xms32m -Xmx512m -cp DIR Heap
 */
public class Heap {
    static double boottime() throws Exception {
        String up = new String(Files.readAllBytes(Paths.get("/proc/uptime")));
        return Double.parseDouble(up.split(" ")[0]);
    }

    static void event(String what, String detail) throws Exception {
        String path = System.getenv("PLANTED_EVENTS");
        if (path == null)
            return;
        long pid = ProcessHandle.current().pid();
        try (FileWriter w = new FileWriter(path, true)) {
            w.write(String.format("%.3f %d java %s %s%n", boottime(), pid, what, detail));
        }
    }

    public static void main(String[] args) throws Exception {
        long max = Runtime.getRuntime().maxMemory();
        long target = max * 6 / 10;
        final int chunk = 128 << 10;
        List<byte[]> live = new ArrayList<>();
        long kept = 0;
        long garbage = 0;
        boolean full = false;
        java.util.Random rnd = new java.util.Random(1);
        event("start", "max heap " + (max >> 20) + " MiB");
        for (long tick = 0;; tick++) {
            for (int i = 0; i < 200; i++) {
                byte[] g = new byte[4096 + rnd.nextInt(16384)];
                garbage += g.length;
            }
            if (tick % 10 == 0) {
                for (int i = 0; i < (1 << 20) / chunk; i++) {
                    byte[] b = new byte[chunk];
                    rnd.nextBytes(b);
                    if (kept < target) {
                        live.add(b);
                        kept += b.length;
                    } else {
                        if (!full) {
                            full = true;
                            event("stop", "live set " + (kept >> 20) + " MiB");
                        }
                        live.set(rnd.nextInt(live.size()), b);
                    }
                }
            }
            Thread.sleep(100);
        }
    }
}
