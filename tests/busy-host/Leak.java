import java.io.FileWriter;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

/**
 * A JVM service that leaks, planted in the busy-host mix recording
 * (tests/busy-host/record-mix.sh): its heap is far from -Xmx; it makes
 * garbage all along (a collector's sawtooth) and after FLAT_S keeps
 * KIB_PER_S of 4 KiB records a second in a list nothing prunes. Started
 * through a symlink to the java launcher named after it, so the process's
 * comm is honest from its exec.
 *
 *     leak-java64 -Xms64m -Xmx2g -cp DIR Leak FLAT_S KIB_PER_S
 */
public class Leak {
    static String name;

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
            w.write(String.format("%.3f %d %s %s %s%n", boottime(), pid, name, what, detail));
        }
    }

    public static void main(String[] args) throws Exception {
        name = new String(Files.readAllBytes(Paths.get("/proc/self/comm"))).trim();
        double flat = Double.parseDouble(args[0]);
        double kib = Double.parseDouble(args[1]);
        double onset = boottime() + flat;
        List<byte[]> kept = new ArrayList<>();
        long n = 0;
        boolean started = false;
        java.util.Random rnd = new java.util.Random(1);
        long garbage = 0;
        event("start", "java leak, max heap " + (Runtime.getRuntime().maxMemory() >> 20) + " MiB");
        for (;;) {
            for (int i = 0; i < 200; i++) {
                byte[] g = new byte[4096 + rnd.nextInt(16384)];
                garbage += g.length;
            }
            double t = boottime();
            if (t >= onset) {
                if (!started) {
                    started = true;
                    event("onset", String.format("%.0f KiB/s", kib));
                }
                while ((n + 1) * 4 <= kib * (t - onset)) {
                    byte[] r = new byte[4096];
                    rnd.nextBytes(r);
                    kept.add(r);
                    n++;
                }
            }
            Thread.sleep(100);
        }
    }
}
