package io.hamiobserve.edge.startup;

import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Where a start's milliseconds go: the moments on the way from launch to the first answered scrape
 * (each named once, its first occurrence kept), printed to stderr as a table once that scrape has
 * been answered when the process runs with {@code -Dhami-observe.startup-timeline=true} (in an image:
 * {@code JAVA_TOOL_OPTIONS}). Marking costs a clock read and a map entry, so the marks stay in the
 * code paths whether or not the table is asked for; the clocks the table is set against (the JVM's
 * start, the process's start) are read only when it is printed.
 */
public final class StartupTimeline {
    /** The system property that asks for the table. */
    public static final String PROPERTY = "hami-observe.startup-timeline";

    /** {@code starttime}, field 22 of {@code /proc/PID/stat}, counted from field 3 (the state). */
    private static final int STARTTIME_FIELD = 22 - 3;
    /** {@code utime} and {@code stime}, fields 14 and 15. */
    private static final int UTIME_FIELD = 14 - 3;
    private static final int STIME_FIELD = 15 - 3;
    /** USER_HZ, 100 on every Linux architecture the images are built for. */
    private static final long CLOCK_TICKS_PER_SECOND = 100;

    /** Read once: the marks of every scrape look at it. */
    private static final boolean ASKED = Boolean.getBoolean(PROPERTY);
    private static final Map<String, Mark> MARKS = new ConcurrentHashMap<>();
    private static final AtomicBoolean PRINTED = new AtomicBoolean();
    private static final CompletableFuture<Void> FIRST_ANSWER = new CompletableFuture<>();
    private static final CompletableFuture<Void> SOURCES_STARTED = new CompletableFuture<>();

    private StartupTimeline() {
    }

    /**
     * Completes when the process has written its first {@code /metrics} answer: what a start
     * leaves until then (Helidon's metrics observer) waits for it, so that the CPU goes to the
     * answer first.
     */
    public static CompletableFuture<Void> firstAnswered() {
        return FIRST_ANSWER;
    }

    /**
     * Completes when every role's sources have started (a snapshot read into the ledger, informers
     * and NVML started): like {@link #firstAnswered()}, what a start leaves until then waits for it.
     */
    public static CompletableFuture<Void> sourcesStarted() {
        return SOURCES_STARTED;
    }

    /** Marks that every role's sources have started. */
    public static void allSourcesStarted() {
        mark("all sources started");
        SOURCES_STARTED.complete(null);
    }

    private record Mark(String name, long nanos, String thread, long processCpuMillis) {
    }

    /** Notes that {@code moment} has been reached, unless it was before. */
    public static void mark(String moment) {
        if (!MARKS.containsKey(moment)) {
            // The process's CPU time, only when the table is asked for: a file read, unlike the clock.
            long cpu = ASKED ? processCpuMillis() : -1;
            MARKS.putIfAbsent(moment, new Mark(moment, System.nanoTime(), Thread.currentThread().getName(), cpu));
        }
    }

    /** Marks the first answered scrape and prints the table the first time, when asked for. */
    public static void firstAnswer() {
        mark("first /metrics answer written");
        FIRST_ANSWER.complete(null);
        if (ASKED && !PRINTED.get() && PRINTED.compareAndSet(false, true)) {
            print(System.err);
        }
    }

    /** The table: each moment after the process's start and after the JVM's, in order. */
    static void print(PrintStream err) {
        List<Mark> marks = new ArrayList<>(MARKS.values());
        marks.sort(Comparator.comparingLong(Mark::nanos));
        // Both starts are wall-clock times; each mark's wall-clock time is taken from its nanos so
        // that the differences between marks keep the monotonic clock's precision.
        long nowNanos = System.nanoTime();
        long nowMillis = System.currentTimeMillis();
        long jvmStart = ManagementFactory.getRuntimeMXBean().getStartTime();
        long processStart = nowMillis - processAgeMillis().orElse(nowMillis - jvmStart);
        StringBuilder table = new StringBuilder(
                "hami-observe: start-up timeline (ms after the process's exec, to 10 ms / after the JVM's start;"
                        + " CPU ms the process had used by then, all threads, to 10 ms)\n");
        table.append(String.format("  %7d %7s %7s  process started%n", 0, "", ""));
        table.append(String.format("  %7d %7d %7s  JVM started%n", jvmStart - processStart, 0, ""));
        for (Mark mark : marks) {
            long at = nowMillis - (nowNanos - mark.nanos()) / 1_000_000;
            table.append(String.format("  %7d %7d %7d  %s  [%s]%n", at - processStart, at - jvmStart,
                    mark.processCpuMillis(), mark.name(), mark.thread()));
        }
        table.append(String.format("  classes loaded: %d%n",
                ManagementFactory.getClassLoadingMXBean().getTotalLoadedClassCount()));
        err.print(table);
        err.flush();
    }

    /**
     * How long ago the process was started (its exec, before the JVM is created), from Linux's
     * clock-tick counts: {@code /proc/self/stat}'s start time against {@code /proc/uptime}, both since
     * boot. ({@link ProcessHandle.Info#startInstant()} adds the boot time, which Linux gives in whole
     * seconds only.) Empty where there is no such file.
     */
    private static OptionalLong processAgeMillis() {
        try {
            long startTicks = Long.parseLong(processStat()[STARTTIME_FIELD]);
            double uptimeSeconds = Double.parseDouble(Files.readString(Path.of("/proc/uptime")).split(" ")[0]);
            return OptionalLong.of(Math.round(uptimeSeconds * 1000) - startTicks * 1000 / CLOCK_TICKS_PER_SECOND);
        } catch (IOException | RuntimeException unavailable) {
            return OptionalLong.empty();
        }
    }

    /** The user and system CPU time the process has used, or -1 where Linux's {@code /proc} is not. */
    private static long processCpuMillis() {
        try {
            String[] fields = processStat();
            return (Long.parseLong(fields[UTIME_FIELD]) + Long.parseLong(fields[STIME_FIELD])) * 1000
                    / CLOCK_TICKS_PER_SECOND;
        } catch (IOException | RuntimeException unavailable) {
            return -1;
        }
    }

    /** The fields of {@code /proc/self/stat} after the command's name (in parentheses, and it may hold spaces). */
    private static String[] processStat() throws IOException {
        String stat = Files.readString(Path.of("/proc/self/stat"));
        return stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    }
}
