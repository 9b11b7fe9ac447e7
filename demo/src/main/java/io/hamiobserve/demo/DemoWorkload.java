package io.hamiobserve.demo;

import io.hamiobserve.domain.CardMode;
import io.hamiobserve.domain.ContainerUsage;
import io.hamiobserve.domain.DeviceShare;
import io.hamiobserve.domain.DeviceUsage;
import io.hamiobserve.domain.HostCardReading;
import io.hamiobserve.domain.PodPhase;
import io.hamiobserve.domain.Units;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;

/**
 * How the demo's containers use their cards over time. Every figure is a smooth function of the
 * clock, so a Prometheus scraping the demo sees live series, and a fixed clock gives a fixed
 * state (the golden tests use one).
 */
public final class DemoWorkload {
    /** Memory the driver keeps for itself on every card, outside any container. */
    static final long DRIVER_RESERVED_MIB = 420;
    /** Each process's CUDA context and loaded modules, part of HAMi-Core's accounting. */
    static final long CONTEXT_MIB = 304;
    static final long MODULE_MIB = 48;
    private static final double PERIOD_SECONDS = 180;
    /**
     * Every figure of the simulation repeats after this (memory has this period, compute a third
     * of it): the demo's history computes each phase once.
     */
    public static final long REPEATS_AFTER_SECONDS = (long) PERIOD_SECONDS;

    private final DemoCluster cluster;
    private final Clock clock;

    public DemoWorkload(DemoCluster cluster, Clock clock) {
        this.cluster = cluster;
        this.clock = clock;
    }

    public DemoCluster cluster() {
        return cluster;
    }

    public Clock clock() {
        return clock;
    }

    /**
     * A container's current use of one of its shares, MiB. HAMi-Core holds managed containers to
     * their share, and a running process holds at least its CUDA context and modules, which
     * HAMi-Core counts in its total (total = context + module + data).
     */
    long useMib(DemoCluster.Pod pod, DemoCluster.Container container, int share) {
        if (!runs(pod, container) || container.baseUseMib().isEmpty()) {
            return 0;
        }
        double wave = Math.sin(2 * Math.PI * seconds() / PERIOD_SECONDS + phase(pod, container, share));
        long use = Math.round(container.baseUseMib().get(share) * (1 + 0.06 * wave));
        long limit = container.shares().get(share).memoryMib();
        return container.managed() ? Math.min(Math.max(use, CONTEXT_MIB + MODULE_MIB), limit) : use;
    }

    /** A container's current SM utilisation on one of its shares, percent of a card. */
    long smUtilPercent(DemoCluster.Pod pod, DemoCluster.Container container, int share) {
        if (!runs(pod, container)) {
            return 0;
        }
        double wave = Math.sin(2 * Math.PI * seconds() / (PERIOD_SECONDS / 3) + phase(pod, container, share));
        long cores = container.shares().get(share).cores();
        return Math.max(0, Math.round(cores * (0.55 + 0.4 * wave)));
    }

    /**
     * A container's AI Core utilisation of its Ascend chip, percent of the chip: in proportion to
     * the share of the chip's memory it holds (a large share, a busy chip), moving on the compute cycle.
     */
    long aiCorePercent(DemoCluster.Pod pod, DemoCluster.Container container, int share) {
        if (!runs(pod, container)) {
            return 0;
        }
        double wave = Math.sin(2 * Math.PI * seconds() / (PERIOD_SECONDS / 3) + phase(pod, container, share));
        double level = Math.min(95, container.shares().get(share).memoryMib() * 100.0 / 32768);
        return Math.max(0, Math.round(level * (0.75 + 0.2 * wave)));
    }

    static boolean runs(DemoCluster.Pod pod, DemoCluster.Container container) {
        return pod.phase() == PodPhase.RUNNING && container.running();
    }

    /** HAMi-Core's accounting for every managed, running container of a node, as its cache files hold it. */
    public List<ContainerUsage> containerUsages(String node) {
        List<ContainerUsage> usages = new ArrayList<>();
        long now = clock.instant().getEpochSecond();
        for (DemoCluster.Pod pod : cluster.pods(node)) {
            for (DemoCluster.Container container : pod.containers()) {
                if (!container.managed() || !runs(pod, container) || container.shares().isEmpty()) {
                    continue;
                }
                List<DeviceUsage> devices = new ArrayList<>();
                for (int i = 0; i < container.shares().size(); i++) {
                    DeviceShare share = container.shares().get(i);
                    long used = Units.mibToBytes(useMib(pod, container, i));
                    long context = Units.mibToBytes(CONTEXT_MIB);
                    long module = Units.mibToBytes(MODULE_MIB);
                    long smUtil = smUtilPercent(pod, container, i);
                    devices.add(new DeviceUsage(i, share.uuid(), used, context, module,
                            used - context - module, share.memoryBytes(),
                            share.cores() == 0 ? 100 : share.cores(), smUtil, 1,
                            smUtil > 0 ? now - 1 - (pod.ref().name().length() % 5) : now - 3600));
                }
                usages.add(new ContainerUsage(pod.ref().uid(), container.name(), devices));
            }
        }
        return usages;
    }

    /** The driver's view of a node's cards: everything running on them, managed or not. */
    public List<HostCardReading> hostCards(String node) {
        List<HostCardReading> readings = new ArrayList<>();
        for (DemoCluster.Card card : cluster.cards(node)) {
            String uuid = card.registration().uuid();
            long usedMib = DRIVER_RESERVED_MIB;
            long util = 0;
            List<HostCardReading.CardProcess> processes = new ArrayList<>();
            for (DemoCluster.Pod pod : cluster.pods(node)) {
                for (int c = 0; c < pod.containers().size(); c++) {
                    DemoCluster.Container container = pod.containers().get(c);
                    for (int s = 0; s < container.shares().size(); s++) {
                        if (!container.shares().get(s).uuid().equals(uuid) || !runs(pod, container)) {
                            continue;
                        }
                        long use = useMib(pod, container, s);
                        long smUtil = smUtilPercent(pod, container, s);
                        usedMib += use;
                        util += smUtil;
                        // The driver samples per-process utilisation on a whole card, not in MIG mode.
                        processes.add(new HostCardReading.CardProcess(pid(pod, c), OptionalLong.of(Units.mibToBytes(use)),
                                card.registration().mode() == CardMode.MIG ? OptionalDouble.empty()
                                        : OptionalDouble.of(smUtil)));
                    }
                }
            }
            for (DemoCluster.Stray stray : cluster.strays(node)) {
                if (stray.uuid().equals(uuid)) {
                    usedMib += stray.useMib();
                    util += stray.smUtilPercent();
                    processes.add(new HostCardReading.CardProcess(stray.pid(),
                            OptionalLong.of(Units.mibToBytes(stray.useMib())), OptionalDouble.of(stray.smUtilPercent())));
                }
            }
            long boundedUtil = Math.min(100, util);
            readings.add(new HostCardReading(card.registration().index(), uuid, card.driverName(),
                    OptionalLong.of(Units.mibToBytes(usedMib)), OptionalLong.of(card.registration().memoryBytes()),
                    OptionalDouble.of(boundedUtil), OptionalDouble.of(Math.round(boundedUtil * 0.6)),
                    OptionalDouble.of(34 + Math.round(boundedUtil * 0.45)), OptionalDouble.of(62 + boundedUtil * 3),
                    Optional.of(String.format("00000000:%02X:00.0", 0x17 + 0x10 * card.registration().index())),
                    Optional.of(processes)));
        }
        return readings;
    }

    /** The host PID of a container's main process. */
    static long pid(DemoCluster.Pod pod, int containerIndex) {
        return 40_000 + Math.abs(pod.ref().uid().hashCode() % 1000) * 10L + containerIndex;
    }

    /** The runtime's ID of a container, as containerd would print it (64 hex digits). */
    static String containerId(DemoCluster.Pod pod, int containerIndex) {
        return String.format("%064x", Math.abs((long) pod.ref().uid().hashCode()) * 100 + containerIndex);
    }

    private double seconds() {
        return clock.millis() / 1000.0;
    }

    private static double phase(DemoCluster.Pod pod, DemoCluster.Container container, int share) {
        return (pod.ref().name().hashCode() + container.name().hashCode() + share) % 628 / 100.0;
    }
}
