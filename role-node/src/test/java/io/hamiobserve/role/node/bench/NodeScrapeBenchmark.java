package io.hamiobserve.role.node.bench;

import io.hamiobserve.testkit.CacheFileImage;
import io.hamiobserve.adapters.cachefile.CacheFiles;
import io.hamiobserve.role.node.UsageRole;
import io.hamiobserve.testkit.FixedPods;
import io.hamiobserve.testkit.ScratchDirectory;
import io.hamiobserve.exposition.ExpositionFormat;
import io.hamiobserve.app.metrics.BuildInfo;
import io.hamiobserve.domain.ContainerShares;
import io.hamiobserve.domain.DeviceShare;
import io.hamiobserve.domain.HostCardReading;
import io.hamiobserve.domain.NodePod;
import io.hamiobserve.domain.PodPhase;
import io.hamiobserve.domain.PodPlacement;
import io.hamiobserve.domain.PodRef;
import io.hamiobserve.domain.ProcessOwner;
import io.hamiobserve.ports.HostCardSource;
import io.hamiobserve.ports.NodePodDirectory;
import io.hamiobserve.ports.ProcessOwnerResolver;
import io.hamiobserve.ports.SkipReporter;

import java.io.ByteArrayOutputStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;

/**
 * A whole node scrape: 8 cards, 200 containers, each with a real HAMi-Core v1.2 cache file holding
 * 4 live processes on up to 4 devices, the node's pod directory and process attribution. Prints the
 * time of a scrape (collect + text rendering; median and p99) and the bytes allocated per scrape, and
 * the median of each 200 scrapes in order with their user and system CPU time.
 *
 * <p>The cards come from a scripted {@link HostCardSource} in Java: the NVML adapter's own cost per
 * read of 8 cards through JNA is measured by {@code NvmlReadBenchmark} in adapters-nvml (tens of
 * microseconds), so it is left out here rather than guessed.
 *
 * <p>Run: {@code bin/bench role-node io.hamiobserve.role.node.bench.NodeScrapeBenchmark [SCRAPES [cardCount containerCount
 * [withoutHamiCoreEvery]]]} (defaults 2,000 scrapes of 8 cards and 200 containers, all with HAMi-Core).
 * With {@code withoutHamiCoreEvery} N &gt; 0, every N-th container has no cache file (a whole card without
 * HAMi-Core, or {@code CUDA_DISABLE_CONTROL=true}): its use comes from the driver's processes and
 * their sampled SM utilisation.
 */
public final class NodeScrapeBenchmark {
    private static final int WINDOW = 200;

    private NodeScrapeBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        try (ScratchDirectory scratch = ScratchDirectory.create("node-scrape-bench")) {
            run(args, scratch.path());
        }
    }

    private static void run(String[] args, Path containers) throws Exception {
        int scrapes = args.length > 0 ? Integer.parseInt(args[0]) : 2_000;
        int cardCount = args.length > 2 ? Integer.parseInt(args[1]) : 8;
        int containerCount = args.length > 2 ? Integer.parseInt(args[2]) : 200;
        int withoutHamiCoreEvery = args.length > 3 ? Integer.parseInt(args[3]) : 0;
        List<NodePod> pods = new ArrayList<>();
        Map<Long, ProcessOwner> owners = new HashMap<>();
        List<HostCardReading.CardProcess> processes = new ArrayList<>();
        for (int c = 0; c < containerCount; c++) {
            PodRef pod = new PodRef("team-" + (c % 10), "job-" + c, String.format("%08x-0000-4000-8000-%012x", c, c));
            int devices = 1 + c % 4;
            CacheFileImage.Builder image = CacheFileImage.v1(2).lastKernelTime(1_795_953_600L);
            List<DeviceShare> shares = new ArrayList<>();
            for (int d = 0; d < devices; d++) {
                String uuid = uuid((c + d) % cardCount);
                image.device(uuid, 4L << 30, 25);
                shares.add(new DeviceShare(uuid, "NVIDIA", 4096, 25));
            }
            for (int p = 0; p < 4; p++) {
                CacheFileImage.DeviceUse[] uses = new CacheFileImage.DeviceUse[devices];
                Arrays.fill(uses, CacheFileImage.DeviceUse.of(300L << 20, 50L << 20, 200L << 20, 5));
                int hostPid = 100_000 + c * 4 + p;
                image.process(1 + p, hostPid, uses);
                owners.put((long) hostPid, new ProcessOwner(pod.uid(), "ctr" + c));
                processes.add(new HostCardReading.CardProcess(hostPid, OptionalLong.of(550L << 20),
                        OptionalDouble.of(p * 5)));
            }
            if (withoutHamiCoreEvery <= 0 || c % withoutHamiCoreEvery != 0) {
                Path file = containers.resolve(pod.uid() + "_worker").resolve("libvgpu.cache");
                Files.createDirectories(file.getParent());
                image.build().writeTo(file);
            }
            pods.add(new NodePod(pod, List.of("worker"), Map.of("ctr" + c, "worker"), Optional.of(new PodPlacement(
                    pod, "bench-node", PodPhase.RUNNING, true, List.of(new ContainerShares(0, "worker", false, shares))))));
        }
        List<HostCardReading> cards = new ArrayList<>();
        int perCard = processes.size() / cardCount;
        for (int i = 0; i < cardCount; i++) {
            int card = i;
            cards.add(new HostCardReading(i, uuid(i), "NVIDIA H100 80GB HBM3", OptionalLong.of(40L << 30),
                    OptionalLong.of(80L << 30), OptionalDouble.of(55), OptionalDouble.of(30), OptionalDouble.of(61),
                    OptionalDouble.of(410), Optional.of(String.format("00000000:%02X:00.0", 0x17 + card)),
                    Optional.of(processes.subList(card * perCard, card * perCard + perCard))));
        }
        HostCardSource hostCards = new HostCardSource() {
            @Override
            public List<HostCardReading> read(SkipReporter skips) {
                return cards;
            }

            @Override
            public void close() {
            }
        };
        NodePodDirectory directory = new FixedPods(pods);
        ProcessOwnerResolver resolver = pids -> owners;
        UsageRole role = new UsageRole("bench-node", hostCards, CacheFiles.directory(containers), directory,
                Optional.of(resolver), false, BuildInfo.current(), Clock.systemUTC()).start();

        // HotSpot's per-thread allocation counter, called reflectively: the app module does not read jdk.management.
        Object threads = ManagementFactory.getThreadMXBean();
        java.lang.reflect.Method allocatedBytes = Class.forName("com.sun.management.ThreadMXBean")
                .getMethod("getCurrentThreadAllocatedBytes");
        java.lang.management.ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
        long[] nanos = new long[scrapes];
        long[] cpuNanos = new long[scrapes];
        long[] userNanos = new long[scrapes];
        long[] collectCpuNanos = new long[scrapes];
        long[] allocated = new long[scrapes];
        long[] collectNanos = new long[scrapes];
        long[] collectAllocated = new long[scrapes];
        int bytes = 0;
        for (int warmup = 0; warmup < 300; warmup++) {
            scrape(role);
        }
        for (int i = 0; i < scrapes; i++) {
            long allocatedBefore = (long) allocatedBytes.invoke(threads);
            long cpuBefore = cpu.getCurrentThreadCpuTime();
            long userBefore = cpu.getCurrentThreadUserTime();
            long start = System.nanoTime();
            bytes = scrape(role);
            nanos[i] = System.nanoTime() - start;
            cpuNanos[i] = cpu.getCurrentThreadCpuTime() - cpuBefore;
            userNanos[i] = cpu.getCurrentThreadUserTime() - userBefore;
            allocated[i] = (long) allocatedBytes.invoke(threads) - allocatedBefore;
        }
        // The same again, collection alone: what the sources, the view and the snapshots cost before writing.
        for (int i = 0; i < scrapes; i++) {
            long allocatedBefore = (long) allocatedBytes.invoke(threads);
            long cpuBefore = cpu.getCurrentThreadCpuTime();
            long start = System.nanoTime();
            role.collect();
            collectNanos[i] = System.nanoTime() - start;
            collectCpuNanos[i] = cpu.getCurrentThreadCpuTime() - cpuBefore;
            collectAllocated[i] = (long) allocatedBytes.invoke(threads) - allocatedBefore;
        }
        // Per 200 scrapes in order: the machine's speed can change within a run, and the user and system
        // time rising together tells such a change from the code's (the JIT's) own.
        StringBuilder windows = new StringBuilder("per 200 scrapes, median ms (mean user ms / system ms):");
        for (int from = 0; from + WINDOW <= scrapes; from += WINDOW) {
            long[] window = Arrays.copyOfRange(nanos, from, from + WINDOW);
            Arrays.sort(window);
            long user = 0;
            long system = 0;
            for (int i = from; i < from + WINDOW; i++) {
                user += userNanos[i];
                system += cpuNanos[i] - userNanos[i];
            }
            windows.append(String.format(" %.2f (%.1f/%.1f)", window[WINDOW / 2] / 1e6, user / WINDOW / 1e6,
                    system / WINDOW / 1e6));
        }
        Arrays.sort(collectNanos);
        Arrays.sort(cpuNanos);
        Arrays.sort(collectCpuNanos);
        Arrays.sort(collectAllocated);
        Arrays.sort(nanos);
        Arrays.sort(allocated);
        System.out.printf("node scrape: %d cards, %d containers (v1.2 files, 4 processes each on 1-4 devices)%s%n",
                cardCount, containerCount, withoutHamiCoreEvery <= 0 ? ""
                        : String.format("; every %d. without HAMi-Core, its use from the driver's processes",
                        withoutHamiCoreEvery));
        System.out.printf("scrape (collect + render %,d bytes): median %.2f ms, p99 %.2f ms over %,d scrapes   "
                + "target <= 5 ms median%n", bytes, nanos[scrapes / 2] / 1e6, nanos[scrapes * 99 / 100] / 1e6, scrapes);
        System.out.printf("allocated per scrape: median %.2f MiB, max %.2f MiB (flat across scrapes: nothing is kept)   target <= 2 MiB%n",
                allocated[scrapes / 2] / 1048576.0, allocated[scrapes - 1] / 1048576.0);
        System.out.printf("of which collection (sources, view, snapshots): median %.2f ms, %.2f MiB; "
                        + "the rest is the text writer and the output buffer%n",
                collectNanos[scrapes / 2] / 1e6, collectAllocated[scrapes / 2] / 1048576.0);
        // CPU time of the scraping thread: what a scrape costs, less what other processes took from the cores.
        System.out.printf("CPU time per scrape: median %.2f ms, p10 %.2f ms (collection %.2f ms, p10 %.2f ms); "
                        + "wall time includes waiting for a core%n", cpuNanos[scrapes / 2] / 1e6,
                cpuNanos[scrapes / 10] / 1e6, collectCpuNanos[scrapes / 2] / 1e6, collectCpuNanos[scrapes / 10] / 1e6);
        System.out.printf("load average %.2f%n", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        System.out.println(windows);
    }

    /**
     * The body's bytes: the endpoint writes each body into the arrays of the last one no scrape reads
     * any more (app.http.BodyArrays; {@code BodyWriterBenchmark} measures that writer), and this
     * writes each into the same buffer.
     */
    private static final ByteArrayOutputStream BODY = new ByteArrayOutputStream(64 * 1024);

    private static int scrape(UsageRole role) throws java.io.IOException {
        BODY.reset();
        role.collect().write(BODY, ExpositionFormat.PROMETHEUS_TEXT);
        return BODY.size();
    }

    private static String uuid(int card) {
        return String.format("GPU-%08x-0000-4000-8000-%012x", card, card);
    }
}
