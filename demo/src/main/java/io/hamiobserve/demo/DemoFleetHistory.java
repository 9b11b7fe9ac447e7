package io.hamiobserve.demo;

import io.hamiobserve.domain.AllocationView;
import io.hamiobserve.domain.CardUse;
import io.hamiobserve.domain.Ghost;
import io.hamiobserve.domain.HostCardReading;
import io.hamiobserve.domain.PendingDemand;
import io.hamiobserve.domain.PodOwner;
import io.hamiobserve.domain.PodPlacement;
import io.hamiobserve.domain.UsageView;
import io.hamiobserve.domain.fleet.Absence;
import io.hamiobserve.domain.fleet.CardAccrual;
import io.hamiobserve.domain.fleet.CardHours;
import io.hamiobserve.domain.fleet.Figure;
import io.hamiobserve.domain.fleet.FleetReadings;
import io.hamiobserve.domain.fleet.FleetScope;
import io.hamiobserve.domain.fleet.Funnel;
import io.hamiobserve.domain.fleet.Measure;
import io.hamiobserve.domain.fleet.Provenance;
import io.hamiobserve.domain.fleet.RightSizing;
import io.hamiobserve.domain.fleet.ShareAccrual;
import io.hamiobserve.domain.fleet.Showback;
import io.hamiobserve.domain.fleet.Stuck;
import io.hamiobserve.domain.fleet.Trend;
import io.hamiobserve.domain.fleet.TrendScope;
import io.hamiobserve.domain.fleet.TrendSet;
import io.hamiobserve.domain.fleet.UsageHistory;
import io.hamiobserve.domain.fleet.UsageOrigin;
import io.hamiobserve.domain.fleet.WorkloadRef;
import io.hamiobserve.ports.FleetHistory;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.function.ToDoubleFunction;

/**
 * The fleet's history read from the demo's simulation instead of a Prometheus: the same port the
 * Prometheus adapter implements, the same sampling as the history a Prometheus is filled with
 * ({@link DemoHistory#STEP} in the past), computed from the simulation's views at each instant.
 * Its "queries" say so instead of showing PromQL.
 */
public final class DemoFleetHistory implements FleetHistory {
    private static final Provenance SIMULATION = new Provenance("simulation",
            "(no Prometheus: computed from the demo's simulation at each instant)");

    private final DemoHistory history;

    public DemoFleetHistory(DemoHistory history) {
        this.history = history;
    }

    @Override
    public String description() {
        return "the demo's simulation (no Prometheus)";
    }

    private static Map<Measure, Provenance> provenance() {
        Map<Measure, Provenance> all = new EnumMap<>(Measure.class);
        for (Measure measure : Measure.values()) {
            all.put(measure, SIMULATION);
        }
        return all;
    }

    /** The whole simulated fleet whatever the scope: it is small, and more than asked is allowed. */
    @Override
    public FleetReadings readings(Instant at, FleetScope scope) {
        AllocationView allocation = history.allocation(at);
        List<UsageView> usage = history.usage(at);
        List<FleetReadings.Registered> registered = new ArrayList<>();
        for (AllocationView.CardAllocation card : allocation.cards()) {
            registered.add(new FleetReadings.Registered(card.node(), card.card().uuid(), card.card().index(),
                    card.card().type(), card.card().mode().label(), Figure.of(card.card().healthy() ? 1 : 0),
                    Figure.of(card.card().memoryBytes()), Figure.of(card.allocatedMemoryBytes()),
                    Figure.of(card.card().cores()), Figure.of(card.allocatedCores()),
                    Figure.of(card.sharedContainers()), Figure.of(card.card().maxShares()),
                    figure(corePercent(card))));
        }
        List<FleetReadings.Host> hosts = new ArrayList<>();
        List<FleetReadings.Use> uses = new ArrayList<>();
        List<FleetReadings.Unmanaged> unmanaged = new ArrayList<>();
        List<FleetReadings.SourceStatus> sources = new ArrayList<>();
        List<FleetReadings.Origin> origins = new ArrayList<>();
        sources.add(new FleetReadings.SourceStatus("simulation", "", "ledger", true));
        for (UsageView view : usage) {
            for (HostCardReading card : view.hostCards()) {
                long beyond = view.cardGaps().stream().filter(gap -> gap.card().uuid().equals(card.uuid()))
                        .mapToLong(UsageView.CardMemoryGap::beyondAllocationBytes).findFirst().orElse(0);
                hosts.add(new FleetReadings.Host(view.node(), card.uuid(), figure(card.memoryUsedBytes()),
                        figure(card.gpuUtilPercent()), figure(card.temperatureCelsius()), figure(card.powerWatts()),
                        Figure.of(beyond)));
            }
            for (UsageView.ContainerDevice device : view.containers()) {
                uses.add(new FleetReadings.Use(device.pod().namespace(), device.pod().name(), device.container(),
                        view.node(), device.usage().uuid(), Figure.of(device.usage().usedBytes()),
                        Figure.of(device.usage().smUtilPercent()), figure(device.lastKernelAgeSeconds())));
            }
            // A container outside HAMi-Core: its use from the driver's processes, as the node role
            // exports it under HAMi's names (labelled source="nvml_process"); no last kernel.
            for (UsageView.ProcessUsage process : view.processUsage()) {
                uses.add(new FleetReadings.Use(process.pod().namespace(), process.pod().name(), process.container(),
                        view.node(), process.uuid(), figure(process.usedBytes()), figure(process.smUtilPercent()),
                        Figure.missing(Absence.NOT_SUPPORTED)));
                origins.add(new FleetReadings.Origin(process.uuid(), process.pod().namespace(), process.pod().name(),
                        process.container(), UsageOrigin.DRIVER_PROCESSES));
            }
            for (UsageView.UnmanagedMemory outside : view.unmanagedMemory()) {
                outside.pod().ifPresent(pod -> unmanaged.add(new FleetReadings.Unmanaged(view.node(), outside.uuid(),
                        pod.namespace(), pod.name(), outside.container(), outside.usedBytes())));
            }
            for (String source : List.of("nvml", "cachefile", "pods", "processes")) {
                sources.add(new FleetReadings.SourceStatus("simulation " + view.node(), view.node(), source, true));
            }
        }
        List<FleetReadings.Allocation> allocations = new ArrayList<>();
        List<FleetReadings.ContainerName> names = new ArrayList<>();
        for (AllocationView.ContainerAllocation share : allocation.containers()) {
            allocations.add(new FleetReadings.Allocation(share.pod().namespace(), share.pod().name(),
                    share.container().index(), share.node(), share.uuid(), Figure.of(share.memoryBytes()),
                    Figure.of(share.cores())));
            FleetReadings.ContainerName name = new FleetReadings.ContainerName(share.pod().namespace(),
                    share.pod().name(), share.container().index(), share.container().name(), share.container().init());
            if (!names.contains(name)) {
                names.add(name);
            }
        }
        List<FleetReadings.Quota> quotas = allocation.quotas().stream().map(quota -> new FleetReadings.Quota(
                quota.namespace(), quota.resource().quotaName(), Figure.of(quota.used()), figure(quota.limit())))
                .toList();
        return new FleetReadings(at, registered, hosts, allocations, names, uses, unmanaged, quotas, sources,
                List.of(new FleetReadings.LedgerAge("simulation", 0)), List.of(), List.of(), Map.of(), provenance(),
                DemoDcgm.physical(history.cluster(), at), origins, Map.of());
    }

    /** The instants of the simulated past (and present) in {@code (from, to]}, {@link DemoHistory#STEP} apart. */
    private List<Instant> samples(Instant from, Instant to) {
        long step = DemoHistory.STEP.toSeconds();
        long start = Math.max(from.getEpochSecond() + 1, history.start().getEpochSecond());
        List<Instant> instants = new ArrayList<>();
        for (long t = Math.ceilDiv(start, step) * step; t <= to.getEpochSecond(); t += step) {
            instants.add(Instant.ofEpochSecond(t));
        }
        return instants;
    }

    private record Share(String namespace, String pod, String container, String uuid) {
    }

    /** One sample of a share: when, the memory it used, its SM utilisation in percent. */
    private record Sample(long epochSecond, double usedBytes, double utilisation) {
    }

    @Override
    public UsageHistory usage(Instant at, Duration window, Duration settledAfter, FleetScope scope) {
        Map<Share, List<Sample>> samples = new LinkedHashMap<>();
        for (Instant t : samples(at.minus(window), at)) {
            for (UsageView view : history.usage(t)) {
                for (UsageView.ContainerDevice device : view.containers()) {
                    samples.computeIfAbsent(new Share(device.pod().namespace(), device.pod().name(),
                            device.container(), device.usage().uuid()), key -> new ArrayList<>())
                            .add(new Sample(t.getEpochSecond(), device.usage().usedBytes(),
                                    device.usage().smUtilPercent()));
                }
                for (UsageView.ProcessUsage process : view.processUsage()) {
                    if (process.usedBytes().isPresent() && process.smUtilPercent().isPresent()) {
                        samples.computeIfAbsent(new Share(process.pod().namespace(), process.pod().name(),
                                process.container(), process.uuid()), key -> new ArrayList<>())
                                .add(new Sample(t.getEpochSecond(), process.usedBytes().getAsLong(),
                                        process.smUtilPercent().getAsDouble()));
                    }
                }
            }
        }
        long settled = at.minus(settledAfter).getEpochSecond();
        long recent = at.minus(RightSizing.IDLE_AFTER).getEpochSecond();
        List<UsageHistory.ShareHistory> shares = new ArrayList<>();
        samples.forEach((share, points) -> {
            double peak = points.stream().mapToDouble(Sample::usedBytes).max().orElse(Double.NaN);
            double[] utilisation = points.stream().mapToDouble(Sample::utilisation).sorted().toArray();
            long older = points.stream().filter(point -> point.epochSecond() <= settled).count();
            double recentMax = points.stream().filter(point -> point.epochSecond() > recent)
                    .mapToDouble(Sample::utilisation).max().orElse(Double.NaN);
            shares.add(new UsageHistory.ShareHistory(share.namespace(), share.pod(), share.container(), share.uuid(),
                    Figure.of(peak), Figure.of(quantile(utilisation, RightSizing.CORES_PERCENTILE)), points.size(),
                    older, Figure.ofNullable(recentMax, Absence.NOT_REPORTED)));
        });
        return new UsageHistory(at, window, settledAfter, shares, provenance());
    }

    /** The φ-quantile of sorted values with linear interpolation between ranks, as Prometheus computes it. */
    static double quantile(double[] sorted, double phi) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        double rank = phi * (sorted.length - 1);
        int lower = (int) Math.floor(rank);
        int upper = Math.min(sorted.length - 1, lower + 1);
        double weight = rank - lower;
        return sorted[lower] * (1 - weight) + sorted[upper] * weight;
    }

    /**
     * Card-hours as the Prometheus adapter integrates them ({@code FleetQueries.cardHours}): at each
     * step of the window, a card the ledger registers (or a node reports) is seen, and unavailable
     * when unhealthy or not registered; a share blocks its size ({@link
     * AllocationView.CardAllocation#shareSize}) and uses its container's utilisation of the card, at
     * most that size. Active: any use in the window's last {@link Funnel#ACTIVE}, read by the minute.
     */
    @Override
    public CardHours cardHours(Instant from, Instant to) {
        if (!from.isBefore(to)) {
            throw new IllegalArgumentException("the window's start " + from + " is not before its end " + to);
        }
        Duration window = Duration.ofSeconds(Math.max(60, Duration.between(from, to).toSeconds() / 60 * 60));
        long step = Showback.step(window).toSeconds();
        Map<String, double[]> cardSeconds = new LinkedHashMap<>();
        Map<String, CardAccrual> cardOf = new LinkedHashMap<>();
        Map<ShareKey, double[]> shareSeconds = new LinkedHashMap<>();
        Map<PodKey, PodOwner> owners = new HashMap<>();
        long first = Math.floorDiv(to.minus(window).getEpochSecond(), step) * step + step;
        for (long t = first; t <= to.getEpochSecond(); t += step) {
            Instant instant = Instant.ofEpochSecond(t);
            if (!history.covers(instant)) {
                continue;
            }
            AllocationView allocation = history.allocation(instant);
            List<UsageView> usage = history.usage(instant);
            Map<String, AllocationView.CardAllocation> registered = new HashMap<>();
            for (AllocationView.CardAllocation card : allocation.cards()) {
                registered.put(card.card().uuid(), card);
                cardOf.putIfAbsent(card.card().uuid(), new CardAccrual("", card.node(), card.card().uuid(),
                        card.card().type(), 0, 0));
                double[] seconds = cardSeconds.computeIfAbsent(card.card().uuid(), key -> new double[2]);
                seconds[0] += step;
                seconds[1] += card.card().healthy() ? 0 : step;
            }
            Map<String, Double> utilisation = new HashMap<>();
            for (UsageView view : usage) {
                for (HostCardReading card : view.hostCards()) {
                    if (!registered.containsKey(card.uuid())) {
                        cardOf.putIfAbsent(card.uuid(), new CardAccrual("", view.node(), card.uuid(), "", 0, 0));
                        double[] seconds = cardSeconds.computeIfAbsent(card.uuid(), key -> new double[2]);
                        seconds[0] += step;
                        seconds[1] += step;
                    }
                }
                for (UsageView.ContainerDevice device : view.containers()) {
                    utilisation.merge(device.pod().namespace() + "\0" + device.pod().name() + "\0"
                            + device.container() + "\0" + device.usage().uuid(),
                            device.usage().smUtilPercent() / 100.0, Math::max);
                }
            }
            for (int i = 0; i < allocation.pods().size(); i++) {
                var pod = allocation.pods().get(i).pod();
                owners.putIfAbsent(new PodKey(pod.namespace(), pod.name()), allocation.owners().get(i));
            }
            for (AllocationView.ContainerAllocation share : allocation.containers()) {
                AllocationView.CardAllocation card = registered.get(share.uuid());
                if (card == null) {
                    continue; // a share on a card no node registers is reported apart, with no size
                }
                double size = card.shareSize(share.memoryMib(), share.cores());
                Double used = utilisation.get(share.pod().namespace() + "\0" + share.pod().name() + "\0"
                        + share.container().name() + "\0" + share.uuid());
                double[] seconds = shareSeconds.computeIfAbsent(new ShareKey(share.pod().namespace(),
                        share.pod().name(), share.container().name(), share.node(), share.uuid()),
                        key -> new double[4]);
                seconds[0] += size * step;
                seconds[1] += used == null ? 0 : Math.min(Math.max(0, used), size) * step;
                seconds[2] += share.memoryBytes() * (double) step;
                seconds[3] += corePercent(card, share.cores()) * step;
            }
        }
        java.util.Set<ShareKey> active = new java.util.HashSet<>();
        activeBefore(to, (view, device) -> active.add(new ShareKey(device.pod().namespace(), device.pod().name(),
                device.container(), view.node(), device.usage().uuid())));
        List<CardAccrual> cards = new ArrayList<>();
        cardSeconds.forEach((uuid, seconds) -> {
            CardAccrual card = cardOf.get(uuid);
            cards.add(new CardAccrual("", card.node(), uuid, card.model(), seconds[0], seconds[1]));
        });
        List<ShareAccrual> shares = new ArrayList<>();
        shareSeconds.forEach((key, seconds) -> {
            PodOwner owner = owners.getOrDefault(new PodKey(key.namespace(), key.pod()),
                    new PodOwner(PodOwner.POD, key.pod()));
            shares.add(new ShareAccrual("", key.namespace(), owner.kind(), owner.name(), key.pod(), key.container(),
                    key.node(), key.uuid(), seconds[0], seconds[1], seconds[2], seconds[3], active.contains(key)));
        });
        return new CardHours(to.minus(window), to, cards, shares, provenance());
    }

    private record ShareKey(String namespace, String pod, String container, String node, String uuid) {
    }

    private record PodKey(String namespace, String pod) {
    }

    /** A share's cores as a percent of its card, 0 where the card's unit cannot tell. */
    private static double corePercent(AllocationView.CardAllocation card, long cores) {
        return card.units().cores().percentOfCard(cores, card.card().cores()).orElse(0);
    }

    /**
     * What is stuck at {@code at}, from the same views the scheduler and node roles export it from:
     * ghosts ({@link Ghost}) with their share's size, memory outside HAMi-Core no share covers (its
     * first sight found by walking the simulated past back, {@link DemoHistory#STEP} at a time),
     * containers without a kernel for {@code idleAfter}, and the pending pods' demand.
     */
    @Override
    public Stuck stuck(Instant at, Duration idleAfter) {
        AllocationView allocation = history.allocation(at);
        Map<String, AllocationView.CardAllocation> cards = new HashMap<>();
        allocation.cards().forEach(card -> cards.put(card.card().uuid(), card));
        List<Stuck.GhostShare> ghosts = new ArrayList<>();
        for (PodPlacement pod : allocation.pods()) {
            Ghost.of(pod).ifPresent(ghost -> {
                for (CardUse use : CardUse.of(pod)) {
                    AllocationView.CardAllocation card = cards.get(use.uuid());
                    ghosts.add(new Stuck.GhostShare(pod.pod().namespace(), pod.pod().name(), pod.node(), use.uuid(),
                            ghost.reason().label(), ghost.sinceEpochSeconds(), card == null ? OptionalDouble.empty()
                            : OptionalDouble.of(card.shareSize(use.memoryMib(), use.cores()))));
                }
            });
        }
        java.util.Set<List<String>> covered = new java.util.HashSet<>();
        allocation.containers().forEach(share -> covered.add(List.of(share.pod().namespace(), share.pod().name(),
                share.uuid())));
        List<Stuck.Zombie> zombies = new ArrayList<>();
        List<Stuck.Idle> idle = new ArrayList<>();
        for (UsageView view : history.usage(at)) {
            for (UsageView.UnmanagedMemory outside : view.unmanagedMemory()) {
                String namespace = outside.pod().map(pod -> pod.namespace()).orElse("");
                String pod = outside.pod().map(ref -> ref.name()).orElse("");
                if (outside.usedBytes() <= 0 || covered.contains(List.of(namespace, pod, outside.uuid()))) {
                    continue;
                }
                AllocationView.CardAllocation card = cards.get(outside.uuid());
                zombies.add(new Stuck.Zombie(view.node(), outside.uuid(), namespace, pod, outside.container(),
                        outside.usedBytes(), OptionalDouble.of(firstSeen(view.node(), outside.holder(), at)),
                        card == null ? OptionalDouble.empty() : OptionalDouble.of(card.card().memoryBytes())));
            }
            for (UsageView.ContainerDevice device : view.containers()) {
                if (device.lastKernelAgeSeconds().isPresent()
                        && device.lastKernelAgeSeconds().getAsLong() >= idleAfter.toSeconds()) {
                    idle.add(new Stuck.Idle(device.pod().namespace(), device.pod().name(), device.container(),
                            view.node(), device.usage().uuid(), device.lastKernelAgeSeconds().getAsLong()));
                }
            }
        }
        List<Stuck.PendingGroup> pending = PendingDemand.of(allocation.pending(), at.toEpochMilli()).groups().stream()
                .map(group -> new Stuck.PendingGroup(group.namespace(), group.reason().label(), group.pods(),
                        group.oldestWaitSeconds())).toList();
        return new Stuck(at, idleAfter, ghosts, zombies, idle, pending, provenance());
    }

    /** The earliest sample, going back from {@code at}, since which {@code holder} has held memory on its node. */
    private double firstSeen(String node, UsageView.UnmanagedMemory.Holder holder, Instant at) {
        Instant seen = at;
        for (Instant t = at.minus(DemoHistory.STEP); history.covers(t); t = t.minus(DemoHistory.STEP)) {
            boolean held = history.usage(t).stream().filter(view -> view.node().equals(node))
                    .flatMap(view -> view.unmanagedMemory().stream())
                    .anyMatch(outside -> outside.usedBytes() > 0 && outside.holder().equals(holder));
            if (!held) {
                break;
            }
            seen = t;
        }
        return seen.getEpochSecond();
    }

    @Override
    public List<String> clusters() {
        return List.of(); // one simulated cluster: its series carry no cluster label
    }

    @Override
    public FleetHistory inCluster(String cluster) {
        throw new UnsupportedOperationException("the demo's simulation is one cluster: it tells no clusters apart");
    }

    @Override
    public TrendSet trends(TrendScope scope, Instant end, Duration range, Duration step) {
        TrendSet.Grid grid = TrendSet.Grid.of(end, range, step);
        Map<Measure, Map<String, double[]>> lines = new EnumMap<>(Measure.class);
        for (int i = 0; i < grid.steps(); i++) {
            Instant at = Instant.ofEpochSecond(grid.at(i));
            if (!history.covers(at)) {
                continue;
            }
            AllocationView allocation = history.allocation(at);
            List<UsageView> usage = history.usage(at);
            switch (scope) {
                case TrendScope.Cluster cluster -> {
                    cards(lines, i, grid, allocation, usage, card -> true, false);
                    funnel(lines, i, grid, at, allocation, usage);
                }
                case TrendScope.Node node -> cards(lines, i, grid, allocation, usage,
                        card -> card.node().equals(node.name()), false);
                case TrendScope.OneCard card -> cards(lines, i, grid, allocation, usage,
                        each -> each.card().uuid().equals(card.uuid()), true);
                case TrendScope.OneWorkload workload -> workload(lines, i, grid, allocation, usage, workload.ref());
            }
        }
        List<Trend> trends = new ArrayList<>();
        lines.forEach((measure, byLabel) -> byLabel.forEach((label, values) ->
                trends.add(new Trend(measure, label, SIMULATION, times(grid), values))));
        return new TrendSet(scope, grid.first(), grid.step(), grid.steps(), trends);
    }

    /** A card's allocated cores as a percent of the card, in whatever unit its vendor counts. */
    private static OptionalDouble corePercent(AllocationView.CardAllocation card) {
        return card.units().cores().percentOfCard(card.allocatedCores(), card.card().cores());
    }

    private static long[] times(TrendSet.Grid grid) {
        long[] times = new long[grid.steps()];
        for (int i = 0; i < times.length; i++) {
            times[i] = grid.at(i);
        }
        return times;
    }

    private static void put(Map<Measure, Map<String, double[]>> lines, Measure measure, String label, int i,
                            TrendSet.Grid grid, double value) {
        double[] values = lines.computeIfAbsent(measure, key -> new LinkedHashMap<>()).computeIfAbsent(label, key -> {
            double[] empty = new double[grid.steps()];
            Arrays.fill(empty, Double.NaN);
            return empty;
        });
        values[i] = Double.isNaN(values[i]) ? value : values[i] + value;
    }

    /** Sums over the selected cards; {@code one} adds a single card's temperature and power. */
    private static void cards(Map<Measure, Map<String, double[]>> lines, int i, TrendSet.Grid grid,
                              AllocationView allocation, List<UsageView> usage,
                              java.util.function.Predicate<AllocationView.CardAllocation> selected, boolean one) {
        List<AllocationView.CardAllocation> cards = allocation.cards().stream().filter(selected).toList();
        if (cards.isEmpty()) {
            return;
        }
        List<String> uuids = cards.stream().map(card -> card.card().uuid()).toList();
        put(lines, Measure.TREND_MEMORY_TOTAL, "", i, grid, sum(cards, card -> card.card().memoryBytes()));
        put(lines, Measure.TREND_MEMORY_ALLOCATED, "", i, grid, sum(cards, card -> card.allocatedMemoryBytes()));
        // The mean of the cards' percents, as the Prometheus queries take it (vendors' units differ).
        put(lines, Measure.TREND_CORES_ALLOCATED, "", i, grid, cards.stream().map(DemoFleetHistory::corePercent)
                .filter(OptionalDouble::isPresent).mapToDouble(OptionalDouble::getAsDouble).average().orElse(Double.NaN));
        List<HostCardReading> hosts = usage.stream().flatMap(view -> view.hostCards().stream())
                .filter(card -> uuids.contains(card.uuid())).toList();
        if (hosts.isEmpty()) {
            return;
        }
        put(lines, Measure.TREND_MEMORY_USED, "", i, grid,
                hosts.stream().mapToDouble(card -> card.memoryUsedBytes().orElse(0)).sum());
        put(lines, Measure.TREND_UTILISATION, "", i, grid,
                hosts.stream().mapToDouble(card -> card.gpuUtilPercent().orElse(0)).average().orElse(Double.NaN));
        if (one) {
            put(lines, Measure.TREND_TEMPERATURE, "", i, grid, hosts.getFirst().temperatureCelsius().orElse(Double.NaN));
            put(lines, Measure.TREND_POWER, "", i, grid, hosts.getFirst().powerWatts().orElse(Double.NaN));
        }
    }

    /**
     * Every container device with some use in the {@link Funnel#ACTIVE} before {@code at}, read by
     * the minute as Prometheus's {@code max_over_time(...[15m]) > 0} reads the scraped minutes.
     */
    private void activeBefore(Instant at, java.util.function.BiConsumer<UsageView, UsageView.ContainerDevice> found) {
        for (long t = at.minus(Funnel.ACTIVE).getEpochSecond() + 60; t <= at.getEpochSecond(); t += 60) {
            Instant instant = Instant.ofEpochSecond(t);
            if (!history.covers(instant)) {
                continue;
            }
            for (UsageView view : history.usage(instant)) {
                for (UsageView.ContainerDevice device : view.containers()) {
                    if (device.usage().smUtilPercent() > 0) {
                        found.accept(view, device);
                    }
                }
            }
        }
    }

    /**
     * The fleet funnel at one step, as the Prometheus adapter's funnel trend reads it: healthy
     * registered cards, the shares' sizes, those of shares with use in the {@link Funnel#ACTIVE}
     * before (read by the minute), and those of shares using at least {@link Funnel#EFFECTIVE} of
     * their size at the step.
     */
    private void funnel(Map<Measure, Map<String, double[]>> lines, int i, TrendSet.Grid grid, Instant at,
                        AllocationView allocation, List<UsageView> usage) {
        Map<String, AllocationView.CardAllocation> cards = new HashMap<>();
        allocation.cards().forEach(card -> cards.put(card.card().uuid(), card));
        Map<List<String>, Double> now = new HashMap<>();
        java.util.Set<List<String>> active = new java.util.HashSet<>();
        for (UsageView view : usage) {
            for (UsageView.ContainerDevice device : view.containers()) {
                now.merge(List.of(device.pod().namespace(), device.pod().name(), device.container(),
                        device.usage().uuid()), device.usage().smUtilPercent() / 100.0, Math::max);
            }
        }
        activeBefore(at, (view, device) -> active.add(List.of(device.pod().namespace(), device.pod().name(),
                device.container(), device.usage().uuid())));
        double allocated = 0;
        double activeCards = 0;
        double effective = 0;
        for (AllocationView.ContainerAllocation share : allocation.containers()) {
            AllocationView.CardAllocation card = cards.get(share.uuid());
            if (card == null) {
                continue;
            }
            double size = card.shareSize(share.memoryMib(), share.cores());
            List<String> key = List.of(share.pod().namespace(), share.pod().name(), share.container().name(),
                    share.uuid());
            allocated += size;
            activeCards += active.contains(key) ? size : 0;
            Double used = now.get(key);
            effective += used != null && size > 0 && used >= Funnel.EFFECTIVE * size ? size : 0;
        }
        put(lines, Measure.TREND_FUNNEL_TOTAL, "", i, grid, allocation.cards().stream()
                .filter(card -> card.card().healthy()).count());
        put(lines, Measure.TREND_FUNNEL_ALLOCATED, "", i, grid, allocated);
        put(lines, Measure.TREND_FUNNEL_ACTIVE, "", i, grid, activeCards);
        put(lines, Measure.TREND_FUNNEL_EFFECTIVE, "", i, grid, effective);
    }

    private static void workload(Map<Measure, Map<String, double[]>> lines, int i, TrendSet.Grid grid,
                                 AllocationView allocation, List<UsageView> usage, WorkloadRef ref) {
        for (AllocationView.ContainerAllocation share : allocation.containers()) {
            if (share.pod().namespace().equals(ref.namespace()) && share.pod().name().equals(ref.pod())
                    && share.container().name().equals(ref.container())) {
                put(lines, Measure.TREND_MEMORY_ALLOCATED, share.uuid(), i, grid, share.memoryBytes());
                put(lines, Measure.TREND_CORES_ALLOCATED, share.uuid(), i, grid, share.cores());
            }
        }
        for (UsageView view : usage) {
            for (UsageView.ContainerDevice device : view.containers()) {
                if (device.pod().namespace().equals(ref.namespace()) && device.pod().name().equals(ref.pod())
                        && device.container().equals(ref.container())) {
                    put(lines, Measure.TREND_MEMORY_USED, device.usage().uuid(), i, grid, device.usage().usedBytes());
                    put(lines, Measure.TREND_UTILISATION, device.usage().uuid(), i, grid,
                            device.usage().smUtilPercent());
                }
            }
        }
    }

    private static double sum(List<AllocationView.CardAllocation> cards,
                              ToDoubleFunction<AllocationView.CardAllocation> value) {
        return cards.stream().mapToDouble(value).sum();
    }

    private static Figure figure(OptionalLong value) {
        return value.isPresent() ? Figure.of(value.getAsLong())
                : Figure.missing(Absence.NOT_SUPPORTED);
    }

    private static Figure figure(OptionalDouble value) {
        return value.isPresent() ? Figure.of(value.getAsDouble())
                : Figure.missing(Absence.NOT_SUPPORTED);
    }
}
