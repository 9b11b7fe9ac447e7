package io.hamiobserve.demo;

import io.hamiobserve.app.testing.Expositions;
import io.hamiobserve.role.scheduler.AllocationRole;
import io.hamiobserve.exposition.testing.Promtool;
import io.hamiobserve.adapters.k8s.fuzz.FuzzInputs;
import io.hamiobserve.adapters.k8s.KubernetesSources;
import io.hamiobserve.exposition.ExpositionFormat;
import io.hamiobserve.app.metrics.SelfMetrics;
import io.hamiobserve.ports.SkipKey;
import io.hamiobserve.app.metrics.SkipCounter;
import io.hamiobserve.app.metrics.SourceHealth;
import io.hamiobserve.role.node.UsageMetrics;
import io.hamiobserve.exposition.Exposition;
import io.hamiobserve.exposition.Families;
import io.hamiobserve.exposition.FamilyDecorator;
import io.hamiobserve.domain.ContainerShares;
import io.hamiobserve.domain.ContainerUsage;
import io.hamiobserve.domain.DeviceShare;
import io.hamiobserve.domain.DeviceUsage;
import io.hamiobserve.domain.HostCardReading;
import io.hamiobserve.domain.MigInstance;
import io.hamiobserve.domain.NodePod;
import io.hamiobserve.domain.PodPhase;
import io.hamiobserve.domain.PodPlacement;
import io.hamiobserve.domain.PodRef;
import io.hamiobserve.domain.ProcessOwner;
import io.hamiobserve.domain.Quantities;
import io.hamiobserve.domain.UsageView;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.Random;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Fuzzes what the endpoints render: hostile inputs in, a valid exposition out, every time.
 *
 * <ul>
 *   <li>{@code allocation-exposition}: dumps of hostile Kubernetes objects ({@code FuzzInputs},
 *       YAML and JSON in turn) read by the real snapshot source into the allocation role, rendered
 *       in both formats; the steady pod every dump holds must be counted exactly.</li>
 *   <li>{@code usage-exposition}: usage views of hostile records (names with quotes, backslashes,
 *       newlines, NUL, lone surrogates and any unicode; figures at 0, at the domain's bounds and
 *       saturated; NaN and infinite driver readings) rendered by the node endpoint's catalogue.</li>
 * </ul>
 * Every {@code promtoolEvery}-th text exposition goes to {@code promtool check metrics}; an
 * exception anywhere fails the run. Long runs: {@code bin/fuzz allocation-exposition} etc.
 */
public final class ExpositionFuzz {
    static final long DEFAULT_SEED = 20_260_117L;
    static final List<String> TARGETS = List.of("allocation-exposition", "usage-exposition");

    private static final String[] ODD_TEXT = {"", "a", "\"", "\\", "\n", "\r", "\t", "\u0000", "\u007f", "é", "\ud800",
            "\udc00", "😀", "\u202e", "{", "}", "=", ",", " ", "#", "x".repeat(300)};

    private ExpositionFuzz() {
    }

    /** Runs {@code count} inputs; returns how many expositions promtool checked. */
    static int run(String target, long seed, long count, int promtoolEvery) {
        // Every input is a new role whose first skip of each reason is logged: thousands of lines, none of use here.
        Logger skipLog = Logger.getLogger(SkipCounter.class.getName());
        Level level = skipLog.getLevel();
        skipLog.setLevel(Level.SEVERE);
        try {
            return runQuietly(target, seed, count, promtoolEvery);
        } finally {
            skipLog.setLevel(level);
        }
    }

    private static int runQuietly(String target, long seed, long count, int promtoolEvery) {
        Random random = new Random(seed);
        int checked = 0;
        Path directory;
        try {
            directory = Files.createTempDirectory("exposition-fuzz");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try {
            for (long i = 0; i < count; i++) {
                String exposition;
                try {
                    exposition = switch (target) {
                        case "allocation-exposition" -> allocation(random, directory, i % 2 == 0);
                        case "usage-exposition" -> usage(random);
                        default -> throw new IllegalArgumentException("no fuzz target " + target + "; targets: "
                                + TARGETS);
                    };
                    if (i % promtoolEvery == 0) {
                        Promtool.assertClean(exposition);
                        checked++;
                    }
                } catch (IllegalArgumentException unknownTarget) {
                    throw unknownTarget;
                } catch (Throwable escaped) {
                    throw new AssertionError(target + " input " + i + " of seed " + seed + " failed", escaped);
                }
            }
        } finally {
            try (var files = Files.list(directory)) {
                files.forEach(file -> file.toFile().delete());
                Files.delete(directory);
            } catch (IOException ignored) {
                // a temporary directory
            }
        }
        return checked;
    }

    private static String allocation(Random random, Path directory, boolean json) throws IOException {
        // getBytes, not writeString: a file holds bytes, and a lone surrogate becomes '?' as any writer makes it.
        Path dump = Files.write(directory.resolve(json ? "dump.json" : "dump.yaml"),
                FuzzInputs.dump(random, json, random.nextInt(12)).getBytes(StandardCharsets.UTF_8));
        AllocationRole role = new AllocationRole(KubernetesSources.snapshot(dump), random.nextBoolean(),
                Expositions.BUILD).start();
        try {
            if (role.failure().isPresent()) {
                // SnakeYAML refuses a whole stream with a raw control character in its first buffer.
                return Expositions.render(role, ExpositionFormat.PROMETHEUS_TEXT);
            }
            String text = Expositions.render(role, ExpositionFormat.PROMETHEUS_TEXT);
            Expositions.render(role, ExpositionFormat.OPENMETRICS_TEXT);
            String steady = "hami_gpu_memory_allocated_bytes{device_cores=\"0\",device_index=\"0\",device_type=\"\","
                    + "device_uuid=\"GPU-STEADY\",node=\"steady-node\",zone=\"vGPU\"} 1.048576E9";
            if (!text.contains(steady)) {
                throw new AssertionError("the steady pod is not counted:\n" + text);
            }
            return text;
        } finally {
            role.close();
        }
    }

    private static String usage(Random random) {
        List<NodePod> pods = new ArrayList<>();
        List<ContainerUsage> usages = new ArrayList<>();
        List<HostCardReading> cards = new ArrayList<>();
        Map<Long, ProcessOwner> owners = new HashMap<>();
        List<String> uuids = List.of("GPU-" + text(random), "GPU-1", "MIG-" + text(random));
        for (int c = 0; c < 1 + random.nextInt(3); c++) {
            List<HostCardReading.CardProcess> processes = new ArrayList<>();
            for (int p = 0; p < random.nextInt(3); p++) {
                long pid = random.nextInt(5);
                processes.add(new HostCardReading.CardProcess(pid, random.nextBoolean() ? OptionalLong.empty()
                        : OptionalLong.of(figure(random))));
            }
            cards.add(new HostCardReading(c, uuids.get(random.nextInt(uuids.size())), text(random),
                    OptionalLong.of(figure(random)), random.nextBoolean() ? OptionalLong.empty()
                    : OptionalLong.of(figure(random)), reading(random), reading(random), reading(random),
                    reading(random), Optional.of(text(random)), Optional.of(processes)));
        }
        for (int p = 0; p < 1 + random.nextInt(3); p++) {
            PodRef ref = new PodRef(text(random), text(random), "uid-" + p);
            List<String> names = List.of(text(random) + "c", "c" + p);
            List<ContainerShares> containers = List.of(new ContainerShares(0, names.get(0), random.nextBoolean(),
                    List.of(new DeviceShare(uuids.get(random.nextInt(uuids.size())), text(random),
                            random.nextBoolean() ? Quantities.MAX_MEMORY_MIB : random.nextInt(100_000),
                            random.nextBoolean() ? Quantities.MAX_PERCENT : random.nextInt(200)))));
            List<MigInstance> mig = random.nextBoolean() ? List.of() : List.of(new MigInstance(random.nextInt(3),
                    random.nextInt(2), uuids.get(random.nextInt(uuids.size())), text(random), 0, 1,
                    random.nextBoolean() ? "" : "MIG-" + text(random), random.nextInt(8), random.nextInt(8)));
            PodPlacement placement = new PodPlacement(ref, "node", PodPhase.RUNNING, random.nextBoolean(), containers,
                    mig);
            pods.add(new NodePod(ref, names, Map.of("cid-" + p, names.get(0)),
                    random.nextInt(4) == 0 ? Optional.empty() : Optional.of(placement)));
            owners.put((long) random.nextInt(5), new ProcessOwner(ref.uid(), "cid-" + p));
            List<DeviceUsage> devices = new ArrayList<>();
            for (int d = 0; d < random.nextInt(4); d++) {
                devices.add(new DeviceUsage(d, uuids.get(random.nextInt(uuids.size())), figure(random),
                        figure(random), figure(random), figure(random), figure(random),
                        random.nextBoolean() ? 100 : random.nextLong() & Long.MAX_VALUE, figure(random),
                        random.nextInt(2000), random.nextBoolean() ? 0 : random.nextLong() & Long.MAX_VALUE));
            }
            usages.add(new ContainerUsage(ref.uid(), names.get(random.nextInt(2)), devices));
        }
        UsageView view = UsageView.compute(text(random) + "n", cards, usages, pods,
                random.nextBoolean() ? Optional.empty() : Optional.of(owners), random.nextLong() & Long.MAX_VALUE);
        SkipCounter skips = new SkipCounter();
        skips.skipped(new SkipKey("cachefile", "device", "unknown_device"), text(random));
        SourceHealth health = new SourceHealth();
        health.record("nvml", random.nextBoolean(), random.nextLong() & Long.MAX_VALUE, text(random));
        FamilyDecorator names = random.nextBoolean() ? UsageMetrics.LEGACY_NAMES : FamilyDecorator.NONE;
        Families families = names.decorated(UsageMetrics.collect(view, pods));
        List<MetricSnapshot> snapshots = new ArrayList<>();
        families.snapshots().forEach(snapshots::add);
        SelfMetrics.families(Expositions.BUILD, skips, health).snapshots().forEach(snapshots::add);
        Exposition library = Exposition.of(new MetricSnapshots(snapshots));
        // The node endpoint writes its rows with the project's text writer: the library's bytes, every time.
        Exposition served = Exposition.of(List.of(families, SelfMetrics.families(Expositions.BUILD, skips, health)));
        String text = write(served, ExpositionFormat.PROMETHEUS_TEXT);
        if (!text.equals(write(library, ExpositionFormat.PROMETHEUS_TEXT))
                || !write(served, ExpositionFormat.OPENMETRICS_TEXT).equals(write(library, ExpositionFormat.OPENMETRICS_TEXT))) {
            throw new AssertionError("the node endpoint's writer differs from the library's for this view:\n" + text);
        }
        return text;
    }

    private static String write(Exposition exposition, ExpositionFormat format) {
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            exposition.write(out, format);
            return out.toString(StandardCharsets.UTF_8);
        } catch (IOException impossible) {
            throw new UncheckedIOException(impossible);
        }
    }

    private static String text(Random random) {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < random.nextInt(4); i++) {
            text.append(random.nextBoolean() ? ODD_TEXT[random.nextInt(ODD_TEXT.length)] : (char) random.nextInt(0x10000));
        }
        return text.isEmpty() ? "t" : text.toString();
    }

    private static long figure(Random random) {
        return switch (random.nextInt(5)) {
            case 0 -> 0;
            case 1 -> Quantities.MAX_MEMORY_BYTES;
            case 2 -> Long.MAX_VALUE;
            default -> random.nextLong() & Long.MAX_VALUE;
        };
    }

    private static OptionalDouble reading(Random random) {
        return switch (random.nextInt(6)) {
            case 0 -> OptionalDouble.empty();
            case 1 -> OptionalDouble.of(Double.NaN);
            case 2 -> OptionalDouble.of(Double.POSITIVE_INFINITY);
            case 3 -> OptionalDouble.of(-random.nextDouble() * 1e300);
            default -> OptionalDouble.of(random.nextDouble() * 100);
        };
    }

    /**
     * {@code TARGET...}: long runs of {@code -Dfuzz.count} inputs each (default 10^4: each is a
     * whole exposition) from {@code -Dfuzz.seed}, every 25th checked by promtool; prints the rate.
     */
    public static void main(String[] args) {
        long count = Long.getLong("fuzz.count", 10_000L);
        long seed = Long.getLong("fuzz.seed", DEFAULT_SEED);
        for (String target : args.length == 0 ? TARGETS : List.of(args)) {
            long start = System.nanoTime();
            int checked = run(target, seed, count, 25);
            double seconds = (System.nanoTime() - start) / 1e9;
            System.out.printf("%s: %,d expositions, seed %d, %.1f s (%,.0f/s), %,d checked by promtool, "
                    + "nothing escaped%n", target, count, seed, seconds, count / seconds, checked);
        }
    }
}
