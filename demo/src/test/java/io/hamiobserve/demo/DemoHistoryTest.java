package io.hamiobserve.demo;

import io.hamiobserve.adapters.prometheus.LocalPrometheus;
import io.hamiobserve.adapters.prometheus.PrometheusFleetHistory;
import io.hamiobserve.domain.ContainerUsage;
import io.hamiobserve.domain.DeviceUsage;
import io.hamiobserve.domain.HostCardReading;
import io.hamiobserve.domain.fleet.FleetScope;
import io.hamiobserve.domain.fleet.Card;
import io.hamiobserve.domain.fleet.Figure;
import io.hamiobserve.domain.fleet.FleetState;
import io.hamiobserve.domain.fleet.FleetTotals;
import io.hamiobserve.domain.fleet.Measure;
import io.hamiobserve.domain.fleet.Trend;
import io.hamiobserve.domain.fleet.TrendScope;
import io.hamiobserve.domain.fleet.Recommendation;
import io.hamiobserve.domain.fleet.RightSizing;
import io.hamiobserve.domain.fleet.UsageHistory;
import io.hamiobserve.domain.fleet.WorkloadRef;
import io.hamiobserve.ports.FleetHistory;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The demo's history: the simulation repeats (which its writer relies on to collect each phase
 * once), and the two implementations of the port over it — the simulation read directly, and a
 * real Prometheus filled from the history file — tell the same story.
 */
class DemoHistoryTest {
    private static final WorkloadRef BRIEFS_POD = new WorkloadRef("ml-team", "llm-inference-7d9f8c6b5-x2k4q", "server");

    @Test
    void theSimulationRepeatsAfterItsPeriodInEverySeriesTheHistoryKeeps() {
        for (long t : new long[] {1_800_000_000L, 1_800_000_077L, 1_800_003_601L}) {
            DemoWorkload now = new DemoWorkload(DemoCluster.standard(), Clock.fixed(Instant.ofEpochSecond(t),
                    ZoneOffset.UTC));
            DemoWorkload later = new DemoWorkload(DemoCluster.standard(), Clock.fixed(Instant.ofEpochSecond(
                    t + DemoWorkload.REPEATS_AFTER_SECONDS), ZoneOffset.UTC));
            for (String node : now.cluster().nodes()) {
                assertEquals(use(now.containerUsages(node)), use(later.containerUsages(node)), node + " at " + t);
                assertEquals(cards(now.hostCards(node)), cards(later.hostCards(node)), node + " at " + t);
            }
        }
    }

    private static List<List<Long>> use(List<ContainerUsage> usages) {
        return usages.stream().flatMap(usage -> usage.devices().stream())
                .map((DeviceUsage device) -> List.of(device.usedBytes(), device.smUtilPercent())).toList();
    }

    private static List<List<Object>> cards(List<HostCardReading> cards) {
        return cards.stream().map(card -> List.<Object>of(card.memoryUsedBytes(), card.gpuUtilPercent(),
                card.temperatureCelsius(), card.powerWatts())).toList();
    }

    @Test
    void theSimulationAndAPrometheusFilledWithItsHistoryAgree() throws Exception {
        Instant now = Instant.now();
        DemoHistory history = new DemoHistory(DemoCluster.standard(), now);
        // A sample instant of the history in a minute the pending pod is placed: Prometheus answers
        // with the sample at end and the simulation's state there is the same. (The pod comes and
        // goes by the minute; where a sample lacks it, Prometheus still shows the sample before,
        // within its five-minute lookback, and the two would differ by that pod alone.)
        long step = DemoHistory.STEP.toSeconds();
        long sample = Math.floorDiv(now.getEpochSecond() - 1, step) * step;
        while (Math.floorMod(sample / 60, 2) != 0) {
            sample -= step;
        }
        Instant end = Instant.ofEpochSecond(sample);
        List<Path> files = List.of(Files.createTempFile("demo-history", ".om"),
                Files.createTempFile("demo-history", ".om"));
        long samples;
        try {
            samples = history.writeOpenMetrics(files, end, "127.0.0.1:1", Map.of(DemoCluster.NODE_A, "127.0.0.1:2",
                    DemoCluster.NODE_B, "127.0.0.1:3"));
            try (LocalPrometheus prometheus = LocalPrometheus.start(List.of(), Duration.ofMinutes(1), files,
                    Duration.ofSeconds(60))) {
                FleetHistory fromPrometheus = PrometheusFleetHistory.at(prometheus.url(), Duration.ofSeconds(30));
                FleetHistory fromSimulation = new DemoFleetHistory(history);
                FleetState viaPrometheus = FleetState.of(fromPrometheus.readings(end, FleetScope.EVERYTHING));
                FleetState viaSimulation = FleetState.of(fromSimulation.readings(end, FleetScope.EVERYTHING));
                // Seven NVIDIA cards and the Ascend node's two: the console reads every vendor's allocation series.
                assertEquals(9, viaPrometheus.cards().size());
                assertEquals(viaSimulation.cards().stream().map(card -> List.of(card.uuid(), card.model(), card.node(),
                                card.memoryTotal(), card.memoryAllocated())).toList(),
                        viaPrometheus.cards().stream().map(card -> List.of(card.uuid(), card.model(), card.node(),
                                card.memoryTotal(), card.memoryAllocated())).toList());
                assertEquals(viaSimulation.workloads().stream().map(w -> w.ref()).toList(),
                        viaPrometheus.workloads().stream().map(w -> w.ref()).toList());
                // DCGM's counters from the history's dcgm-exporter series and from the simulation: the
                // same per card (the energy over the hour and the two-sources check read ranges, which
                // the history's 293-second steps sample differently; a MIG card's engine activity is a ratio
                // times 100, equal to a millionth).
                java.util.function.Function<FleetState, List<List<Object>>> physical = state -> state.cards().stream()
                        .filter(card -> card.physical().isPresent()).map(card -> card.physical().orElseThrow())
                        .map(p -> List.<Object>of(p.uuid(), p.hostname(), p.gpuTemperature(), p.memoryTemperature(),
                                p.power(), p.smClock(), p.utilisation().map(v -> Math.round(v * 1e6) / 1e6),
                                p.utilisationField(), p.framebufferUsed(),
                                p.xid(), p.clockEvents(), p.eccUncorrectable(), p.sourcesDisagree())).toList();
                assertEquals(7, physical.apply(viaPrometheus).size(), "every NVIDIA card, none of the Ascend node's");
                assertEquals(physical.apply(viaSimulation), physical.apply(viaPrometheus));

                // Compute allocated across NVIDIA cards (percent) and the Ascend node's (AI cores): the
                // mean of the cards' percents, the same both ways; the sums of raw units say otherwise.
                double meanPercent = viaSimulation.cards().stream().map(Card::coresAllocatedPercent)
                        .filter(Figure::isKnown).mapToDouble(Figure::orElseThrow).average().orElseThrow();
                assertEquals(meanPercent / 100, FleetTotals.of(viaPrometheus).coresAllocatedFraction().orElseThrow(),
                        1e-9);
                Trend cores = fromPrometheus.trends(new TrendScope.Cluster(), end, Duration.ofSeconds(10),
                        Duration.ofSeconds(1)).of(Measure.TREND_CORES_ALLOCATED).getFirst();
                assertEquals(meanPercent, cores.at(cores.size() - 1).orElseThrow(), 1e-9);
                Trend simulated = fromSimulation.trends(new TrendScope.Cluster(), end, Duration.ofSeconds(10),
                        Duration.ofSeconds(1)).of(Measure.TREND_CORES_ALLOCATED).getFirst();
                assertEquals(meanPercent, simulated.at(simulated.size() - 1).orElseThrow(), 1e-9);
                List<Card> counted = viaPrometheus.cards().stream().filter(card -> card.coresAllocated().isKnown()
                        && card.coresTotal().isKnown()).toList();
                double rawSums = 100 * counted.stream().mapToDouble(card -> card.coresAllocated().orElseThrow()).sum()
                        / counted.stream().mapToDouble(card -> card.coresTotal().orElseThrow()).sum();
                assertTrue(Math.abs(rawSums - meanPercent) > 1, "raw sums " + rawSums + " vs mean " + meanPercent);

                // The funnel's trend at the sample: the same cards and shares' sizes both ways; each stage
                // within the one before (activity over 15 minutes: Prometheus's history is sampled every
                // 293 s, the simulation read by the minute).
                var prometheusTrends = fromPrometheus.trends(new TrendScope.Cluster(), end, Duration.ofSeconds(10),
                        Duration.ofSeconds(1));
                var simulatedTrends = fromSimulation.trends(new TrendScope.Cluster(), end, Duration.ofSeconds(10),
                        Duration.ofSeconds(1));
                java.util.function.BiFunction<io.hamiobserve.domain.fleet.TrendSet, Measure, Double> last =
                        (set, measure) -> { Trend trend = set.of(measure).getFirst();
                            return trend.at(trend.size() - 1).orElseThrow(); };
                assertEquals(last.apply(simulatedTrends, Measure.TREND_FUNNEL_TOTAL),
                        last.apply(prometheusTrends, Measure.TREND_FUNNEL_TOTAL), 1e-9, "the cards");
                // The shares' sizes: a pod that stopped within Prometheus's five-minute lookback of the
                // sample (the history is written every 293 s, with no staleness marker) still counts
                // there, not in the simulation: the two agree to such a share (at most half a card).
                assertEquals(last.apply(simulatedTrends, Measure.TREND_FUNNEL_ALLOCATED),
                        last.apply(prometheusTrends, Measure.TREND_FUNNEL_ALLOCATED), 0.5, "the shares' sizes");
                for (var set : List.of(prometheusTrends, simulatedTrends)) {
                    double allocated = last.apply(set, Measure.TREND_FUNNEL_ALLOCATED);
                    double active = last.apply(set, Measure.TREND_FUNNEL_ACTIVE);
                    double effective = last.apply(set, Measure.TREND_FUNNEL_EFFECTIVE);
                    assertTrue(allocated > active && active > 0 && active >= effective && effective > 0,
                            allocated + " " + active + " " + effective);
                }

                UsageHistory prometheusUsage = fromPrometheus.usage(end, RightSizing.DEFAULT_WINDOW,
                        RightSizing.MIN_HISTORY, FleetScope.EVERYTHING);
                Recommendation prometheusAdvice = briefsPod(viaPrometheus, prometheusUsage);
                Recommendation simulationAdvice = briefsPod(viaSimulation, fromSimulation.usage(end,
                        RightSizing.DEFAULT_WINDOW, RightSizing.MIN_HISTORY, FleetScope.EVERYTHING));
                assertEquals(2560, prometheusAdvice.memoryMib().orElseThrow());
                assertEquals(2560, simulationAdvice.memoryMib().orElseThrow());
                assertEquals(30, prometheusAdvice.cores().orElseThrow());
                assertEquals(30, simulationAdvice.cores().orElseThrow());
                // What fits after right-sizing, read both ways: the same on the NVIDIA cards (the
                // simulation holds no history of the Ascend node's exporters, Prometheus does), and on
                // the A100s a pod of 8 GiB finds more room: the cuts (the Deployment's two replicas give
                // back 5.5 GiB each) outweigh the raises (research/cuda-sim, outside HAMi-Core, uses
                // 6.5 GiB of its 2 GiB share) card by card.
                UsageHistory simulationUsage = fromSimulation.usage(end, RightSizing.DEFAULT_WINDOW,
                        RightSizing.MIN_HISTORY, FleetScope.EVERYTHING);
                io.hamiobserve.domain.fleet.PodShape eightGiB = new io.hamiobserve.domain.fleet.PodShape(8192, 0, 1);
                java.util.function.BiFunction<FleetState, UsageHistory, List<io.hamiobserve.domain.fleet.Capacity
                        .ModelCapacity>> capacity = (state, use) -> io.hamiobserve.domain.fleet.Capacity.of(
                        state.cards().stream().filter(card -> card.model().contains("NVIDIA")).toList(), eightGiB,
                        RightSizing.recommendAll(state.workloads(), use));
                List<io.hamiobserve.domain.fleet.Capacity.ModelCapacity> capacityViaPrometheus =
                        capacity.apply(viaPrometheus, prometheusUsage);
                assertEquals(capacity.apply(viaSimulation, simulationUsage), capacityViaPrometheus);
                io.hamiobserve.domain.fleet.Capacity.ModelCapacity a100 = capacityViaPrometheus.stream()
                        .filter(model -> model.model().contains("A100")).findFirst().orElseThrow();
                assertTrue(a100.fitsAfterRightSizing() > a100.fits(), "A100s after right-sizing: " + a100);
                // What the cuts give back and the raises take: each recommendation's change on each A100 it names.
                java.util.Set<String> a100s = viaPrometheus.cards().stream().filter(card -> card.model()
                        .contains("A100")).map(Card::uuid).collect(java.util.stream.Collectors.toSet());
                double cuts = 0;
                double raises = 0;
                for (Recommendation each : RightSizing.recommendAll(viaPrometheus.workloads(), prometheusUsage)) {
                    long onA100s = each.uuids().stream().distinct().filter(a100s::contains).count();
                    double change = each.memoryChangeMib().isKnown() ? each.memoryChangeMib().orElseThrow() : 0;
                    cuts += Math.max(0, -change) * onA100s * 1024 * 1024;
                    raises += Math.max(0, change) * onA100s * 1024 * 1024;
                }
                assertTrue(cuts > 0 && raises > 0, cuts + " " + raises);
                assertEquals(cuts, a100.memoryGivenBack(), 1e-6);
                assertEquals(raises, a100.memoryTaken(), 1e-6);
                // The pod exists since the rollout: its samples cover the days since, not the week.
                long sinceRollout = DemoCluster.ROLLOUT_AGO.toSeconds() / DemoHistory.STEP.toSeconds();
                assertTrue(Math.abs(prometheusAdvice.samples() - sinceRollout) <= 2,
                        "since the rollout at 293 s: " + prometheusAdvice.samples() + " vs " + sinceRollout);
                assertEquals(simulationAdvice.memoryPeak(), prometheusAdvice.memoryPeak());
                // The Deployment's pods before the rollout used their shares alike: the same figure
                // over the rest of the week, so the workload's recommendation holds across the rollout.
                List<UsageHistory.ShareHistory> before = prometheusUsage.shares().stream()
                        .filter(share -> share.pod().startsWith("llm-inference-5c4b7f9d8-")).toList();
                assertEquals(2, before.size(), "both replicas of the old ReplicaSet");
                for (UsageHistory.ShareHistory old : before) {
                    assertEquals(2560, RightSizing.memoryMib(old.memoryPeak().orElseThrow()), old.pod());
                    assertTrue(old.samples() > 1000, old.pod() + ": " + old.samples());
                }
            }
        } finally {
            for (Path file : files) {
                Files.deleteIfExists(file);
            }
        }
        assertTrue(samples > 200_000, "history samples: " + samples);
    }

    private static Recommendation briefsPod(FleetState state, UsageHistory usage) {
        return RightSizing.recommend(state.workload(BRIEFS_POD).orElseThrow(), usage);
    }
}
