package io.hamiobserve.adapters.prometheus;

import io.hamiobserve.domain.fleet.Figure;
import io.hamiobserve.domain.fleet.FleetScope;
import io.hamiobserve.domain.fleet.Measure;
import io.hamiobserve.domain.fleet.RightSizing;
import io.hamiobserve.domain.fleet.Trend;
import io.hamiobserve.domain.fleet.TrendScope;
import io.hamiobserve.domain.fleet.TrendSet;
import io.hamiobserve.domain.fleet.UsageHistory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The console's recording rules against the queries they stand in for, on real Prometheus
 * servers: one holding only the raw history (the console computes from every container), one
 * that also holds the rules evaluated over that history, as a Prometheus that has run them all
 * along does. Both must give the console the same figures, and each must say which series it read.
 * The allocation series come from two scheduler-side replicas: no sum may count a share twice.
 */
class RecordingRulesTest {
    private static final double GIB = 1024.0 * 1024 * 1024;
    private static final Duration HOURS = Duration.ofHours(8);

    private static long at;
    private static History.RawAndRecorded servers;
    private static PrometheusFleetHistory fromRaw;
    private static PrometheusFleetHistory fromRecorded;

    @BeforeAll
    static void startBothWithTheSameHistory() throws Exception {
        // Eight hours, one sample a minute, half a minute off the minute (as a real scrape falls),
        // ending two hours ago: the hourly rules run on whole hours, the last one at `at`.
        long base = (Instant.now().getEpochSecond() / 3600) * 3600 - 10 * 3600;
        at = base + HOURS.toSeconds();
        servers = History.rawAndRecorded("hami-observe-rules", base + 30, at - 30, 60, series -> fleet(series, base));
        fromRaw = PrometheusFleetHistory.at(servers.raw().url(), Duration.ofSeconds(20));
        fromRecorded = PrometheusFleetHistory.at(servers.recorded().url(), Duration.ofSeconds(20));
    }

    /**
     * One card shared by three pods for eight hours from {@code base}, written by two scheduler-side
     * replicas, with a sample a minute half a minute off the minute (as a real scrape falls).
     */
    private static void fleet(History series, long base) throws Exception {
        series.series("hami_gpu_memory_limit_bytes", Map.of("node", "node-a", "device_uuid", "GPU-A0",
                "device_index", "0", "device_type", "NVIDIA A100", "instance", "scheduler-0"), t -> 40 * GIB);
        for (String replica : List.of("scheduler-0", "scheduler-1")) {
            allocation(series, replica, "ml-team", "llm", "0", "server", 8 * GIB, 30);
            allocation(series, replica, "ml-team", "notebook", "0", "jupyter", 4 * GIB, 20);
            allocation(series, replica, "batch", "trainer", "0", "main", 16 * GIB, 50);
            // Two pods name their controller (the notebook is a bare pod); the trainer's Job
            // ended, as a CronJob's do, half an hour before the history does.
            owner(series, replica, "ml-team", "llm", "Deployment", "llm", base + 30, Long.MAX_VALUE);
            owner(series, replica, "batch", "trainer", "CronJob", "nightly", base + 30, at - 1800);
        }
        use(series, "ml-team", "llm", "server", t -> (2 + (t / 60 % 7) / 10.0) * GIB, t -> 20 + t / 60 % 10);
        use(series, "ml-team", "notebook", "jupyter", t -> 3 * GIB, t -> 0);
        // A pod that peaks once, in its third hour.
        use(series, "batch", "trainer", "main", t -> (t - base) / 3600 == 2 && t % 3600 == 630 ? 15 * GIB : 9 * GIB,
                t -> 70);
    }

    @AfterAll
    static void stop() {
        if (servers != null) {
            servers.close();
        }
    }

    private static void allocation(History series, String instance, String namespace, String pod, String index,
                                   String container, double memory, double cores) throws Exception {
        Map<String, String> labels = Map.of("namespace", namespace, "pod", pod, "container_index", index,
                "node", "node-a", "device_uuid", "GPU-A0", "instance", instance, "job", "hami-observe-scheduler");
        Map<String, String> detail = new java.util.HashMap<>(labels);
        detail.put("container", container);
        series.series("hami_vgpu_memory_allocated_bytes", labels, t -> memory)
                .series("hami_vgpu_core_allocated_ratio", labels, t -> cores)
                .series("hami_observe_vgpu_container_memory_allocated_bytes", detail, t -> memory)
                .series("hami_observe_vgpu_container_core_allocated_ratio", detail, t -> cores);
    }

    private static void owner(History series, String instance, String namespace, String pod, String kind, String name,
                              long from, long until) throws Exception {
        Map<String, String> labels = Map.of("namespace", namespace, "pod", pod, "node", "node-a", "owner_kind", kind,
                "owner_name", name, "instance", instance, "job", "hami-observe-scheduler");
        series.series("hami_observe_pod_owner", labels, from, until, t -> 1);
    }

    private static void use(History series, String namespace, String pod, String container,
                            java.util.function.LongToDoubleFunction memory,
                            java.util.function.LongToDoubleFunction utilisation) throws Exception {
        Map<String, String> labels = Map.of("namespace", namespace, "pod", pod, "container", container,
                "node", "node-a", "device_uuid", "GPU-A0", "instance", "node-a:9394", "job", "hami-observe-node");
        series.series("hami_vgpu_memory_used_bytes", labels, memory)
                .series("hami_container_device_utilization_ratio", labels, utilisation);
    }

    @Test
    void theRuleFileRecordsExactlyTheExpressionsTheConsoleFallsBackTo() throws Exception {
        Map<String, String> rules = new LinkedHashMap<>();
        Matcher rule = Pattern.compile("- record: (\\S+)\\n\\s+expr: (.+)\\n").matcher(RecordingRules.file());
        while (rule.find()) {
            rules.putIfAbsent(rule.group(1), rule.group(2));
        }
        assertTrue(rules.get(RecordingRules.CONTAINER_MEMORY_PEAK_HOURLY).contains("max_over_time(hami_vgpu_memory_used_bytes["));
        assertTrue(rules.get(RecordingRules.CONTAINER_MEMORY_SAMPLES_HOURLY).contains("count_over_time(hami_vgpu_memory_used_bytes["));
        // Each hour's percentiles are the ones the console's fallback takes at each hour.
        assertTrue(rules.get(RecordingRules.CONTAINER_UTILISATION_P95_HOURLY).contains("(quantile_over_time(0.95, "
                + "hami_container_device_utilization_ratio[" + RecordingRules.HOUR_LESS_A_MILLISECOND + "]))"));
        assertTrue(FleetQueries.UTILISATION_P95.text().contains("(quantile_over_time(0.95, "
                + "hami_container_device_utilization_ratio{${where}}[" + RecordingRules.HOUR_LESS_A_MILLISECOND + "])"));
        assertTrue(rules.get(RecordingRules.CONTAINER_UTILISATION_MEDIAN_HOURLY).contains("(quantile_over_time(0.5, "
                + "hami_container_device_utilization_ratio[" + RecordingRules.HOUR_LESS_A_MILLISECOND + "]))"));
        assertTrue(FleetQueries.UTILISATION_MEDIAN.text().contains("(quantile_over_time(0.5, "
                + "hami_container_device_utilization_ratio{${where}}[" + RecordingRules.HOUR_LESS_A_MILLISECOND + "])"));
        assertTrue(rules.containsKey(RecordingRules.EVALUATED));
        for (FleetQueries.Integral integral : FleetQueries.cardHours(RecordingRules.CLUSTER_LABEL).integrals()) {
            assertEquals(integral.rule(), rules.get(integral.record()), integral.record());
            assertTrue(integral.rule().contains("by (" + RecordingRules.CLUSTER_LABEL + ", "), integral.record());
        }

        // Every record of each container's hour and of the funnel keeps the cluster label.
        for (String record : List.of(RecordingRules.CONTAINER_MEMORY_PEAK_HOURLY,
                RecordingRules.CONTAINER_MEMORY_SAMPLES_HOURLY, RecordingRules.CONTAINER_UTILISATION_P95_HOURLY,
                RecordingRules.CONTAINER_UTILISATION_MEDIAN_HOURLY)) {
            assertTrue(rules.get(record).startsWith("max by (" + RecordingRules.CLUSTER_LABEL + ", "), record);
        }
        Map<String, PromQl.Template> funnel = Map.of(RecordingRules.FUNNEL_HEALTHY, FleetQueries.FUNNEL_TOTAL_BY_CLUSTER,
                RecordingRules.FUNNEL_ALLOCATED, FleetQueries.FUNNEL_ALLOCATED_BY_CLUSTER, RecordingRules.FUNNEL_ACTIVE,
                FleetQueries.FUNNEL_ACTIVE_BY_CLUSTER, RecordingRules.FUNNEL_EFFECTIVE,
                FleetQueries.FUNNEL_EFFECTIVE_BY_CLUSTER);
        funnel.forEach((record, query) -> assertEquals(query.bind("cluster",
                new PromQl.Label(RecordingRules.CLUSTER_LABEL)).expression(), rules.get(record), record));
        funnel.forEach((record, query) -> assertTrue(rules.get(record).matches("(count|sum) by \\("
                + RecordingRules.CLUSTER_LABEL + "\\) .*"), record));
        // The overview's other lines, each recorded as FleetQueries.CardLine writes it, by cluster.
        for (FleetQueries.CardLine line : FleetQueries.CardLine.values()) {
            assertEquals(line.rule(), rules.get(line.record), line.record);
            assertTrue(line.rule().startsWith(line.operation + " by (" + RecordingRules.CLUSTER_LABEL + ") "),
                    line.record);
        }

        Path file = Files.createTempFile("hami-observe-console", ".rules.yml");
        try {
            Files.writeString(file, RecordingRules.file());
            Process check = new ProcessBuilder("promtool", "check", "rules", file.toString()).redirectErrorStream(true)
                    .start();
            String output = new String(check.getInputStream().readAllBytes());
            assertTrue(check.waitFor(60, TimeUnit.SECONDS));
            assertEquals(0, check.exitValue(), output);
            assertTrue(output.contains("SUCCESS: 34 rules found"), output);
        } finally {
            Files.deleteIfExists(file);
        }
        // The file packaged is the file deployed (deploy/render builds the PrometheusRule from it).
        Path source = Path.of(System.getProperty("project.root", "..")).resolve("alerts/hami-observe-console.rules.yml");
        assertEquals(Files.readString(source), RecordingRules.file());
    }

    /** The figures but the hours with samples, which may differ by the one at either end (raw series are looked at on whole hours). */
    static List<UsageHistory.ShareHistory> withoutHours(List<UsageHistory.ShareHistory> shares) {
        return shares.stream().map(s -> new UsageHistory.ShareHistory(s.namespace(), s.pod(), s.container(), s.uuid(),
                s.memoryPeak(), s.utilisationP95(), s.samples(), s.settledSamples(), s.utilisationRecentMax(),
                s.workload(), s.memoryMedian(), s.utilisationMedian(), 0)).toList();
    }

    @Test
    void rightSizingReadsTheSameFiguresFromTheHourlyRecordsAsFromEverySample() throws Exception {
        // Prometheus runs an hourly group at a fixed offset into the hour (a hash of its name);
        // compared at its last run before `at`, the records hold every sample there is.
        Instant run = History.lastRun(servers.recorded().url(), RecordingRules.Group.HOURLY, at);
        UsageHistory fromSamples = fromRaw.usage(run, RightSizing.DEFAULT_WINDOW, RightSizing.MIN_HISTORY,
                FleetScope.EVERYTHING);
        UsageHistory fromRecords = fromRecorded.usage(run, RightSizing.DEFAULT_WINDOW, RightSizing.MIN_HISTORY,
                FleetScope.EVERYTHING);
        assertFalse(fromSamples.provenance(Measure.CONTAINER_MEMORY_PEAK).expression().contains(":max_1h"),
                "no rules ran over this history: the raw series answer");
        assertTrue(fromRecords.provenance(Measure.CONTAINER_MEMORY_PEAK).expression()
                .contains(RecordingRules.CONTAINER_MEMORY_PEAK_HOURLY));
        assertTrue(fromRecords.provenance(Measure.CONTAINER_SAMPLES).expression()
                .contains(RecordingRules.CONTAINER_MEMORY_SAMPLES_HOURLY));
        // Compute's p95 and median: of the hours' own, recorded, or taken at each hour of the raw series.
        assertTrue(fromRecords.provenance(Measure.CONTAINER_UTILISATION_P95).expression()
                .contains(RecordingRules.CONTAINER_UTILISATION_P95_HOURLY));
        assertTrue(fromRecords.provenance(Measure.CONTAINER_UTILISATION_MEDIAN).expression()
                .contains(RecordingRules.CONTAINER_UTILISATION_MEDIAN_HOURLY));
        assertFalse(fromSamples.provenance(Measure.CONTAINER_UTILISATION_P95).expression().contains(":p95_1h"));

        // Each pod's owner and each workload's hours, from the owner records as from the hourly
        // join over the raw series (the hours again within the one hour at either end).
        assertTrue(fromRecords.provenance(Measure.CONTAINER_OWNER).expression()
                .contains(RecordingRules.POD_OWNER_HOURLY));
        assertTrue(fromRecords.provenance(Measure.WORKLOAD_HOURS).expression()
                .contains(RecordingRules.WORKLOAD_MEMORY_PEAK_HOURLY));
        assertFalse(fromSamples.provenance(Measure.WORKLOAD_HOURS).expression().contains(":max_1h"));
        assertEquals(fromSamples.workloadHours().keySet(), fromRecords.workloadHours().keySet());
        // (A bare pod's hours are its container's: only pods an owner names are joined.)
        assertEquals(Set.of("Deployment/llm", "CronJob/nightly"), fromSamples.workloadHours().keySet()
                .stream().map(group -> group.ownerKind() + "/" + group.ownerName()).collect(Collectors.toSet()));
        fromSamples.workloadHours().forEach((group, hours) -> assertTrue(
                Math.abs(hours - fromRecords.workloadHours().get(group)) <= 1,
                group + ": " + hours + " hours, recorded " + fromRecords.workloadHours().get(group)));
        List<UsageHistory.ShareHistory> expected = sorted(fromSamples.shares());
        assertEquals(3, expected.size());
        // The hours with samples: the raw series are looked at on each whole hour, the records were
        // written at the group's offset into the hour, so the two counts may differ by the one
        // hour at either end of the history; every other figure is the same.
        List<UsageHistory.ShareHistory> records = sorted(fromRecords.shares());
        for (int i = 0; i < expected.size(); i++) {
            assertTrue(Math.abs(expected.get(i).hours() - records.get(i).hours()) <= 1,
                    expected.get(i).hours() + " hours, recorded " + records.get(i).hours());
        }
        assertEquals(withoutHours(expected), withoutHours(records));
        UsageHistory.ShareHistory trainer = expected.stream().filter(share -> share.pod().equals("trainer"))
                .findFirst().orElseThrow();
        assertEquals(Figure.of(15 * GIB), trainer.memoryPeak(), "the one peak, six hours back");
        // The llm's utilisation runs 20, 21 … 29 % a minute each, every hour alike: each hour's
        // p95 is 29 and its median 24.5, and so are the window's of the hours'.
        UsageHistory.ShareHistory llm = expected.stream().filter(share -> share.pod().equals("llm"))
                .findFirst().orElseThrow();
        assertEquals(29, llm.utilisationP95().orElseThrow(), 1e-9);
        assertEquals(24.5, llm.utilisationMedian().orElseThrow(), 1e-9);

        // A scope's matchers select recorded series as they select raw ones.
        UsageHistory oneNode = fromRecorded.usage(run, RightSizing.DEFAULT_WINDOW, RightSizing.MIN_HISTORY,
                new FleetScope.OnNode("node-a"));
        assertEquals(records, sorted(oneNode.shares()));

        // Between two runs the samples since the last one are not counted yet (at most an hour's);
        // the peak is, from the raw last hour.
        List<UsageHistory.ShareHistory> now = sorted(fromRaw.usage(Instant.ofEpochSecond(at),
                RightSizing.DEFAULT_WINDOW, RightSizing.MIN_HISTORY, FleetScope.EVERYTHING).shares());
        List<UsageHistory.ShareHistory> recordedNow = sorted(fromRecorded.usage(Instant.ofEpochSecond(at),
                RightSizing.DEFAULT_WINDOW, RightSizing.MIN_HISTORY, FleetScope.EVERYTHING).shares());
        for (int i = 0; i < now.size(); i++) {
            assertEquals(now.get(i).memoryPeak(), recordedNow.get(i).memoryPeak());
            assertEquals(HOURS.toMinutes(), now.get(i).samples());
            long lag = now.get(i).samples() - recordedNow.get(i).samples();
            assertTrue(lag >= 0 && lag <= 60, "samples not yet recorded: " + lag);
        }
    }

    private static List<UsageHistory.ShareHistory> sorted(List<UsageHistory.ShareHistory> shares) {
        return shares.stream().sorted(Comparator.comparing(UsageHistory.ShareHistory::pod)).toList();
    }

    @Test
    void theDaysFunnelReadsItsRecordsWhereTheGroupRanThroughItsStepsAndTheSameFigures() throws Exception {
        // The last five hours, every ten minutes: the one-minute group ran through all of it.
        Instant end = Instant.ofEpochSecond(at - 60);
        TrendSet fromRecords = fromRecorded.trends(new TrendScope.Cluster(),
                end, Duration.ofHours(5), Duration.ofMinutes(10));
        TrendSet computed = fromRaw.trends(new TrendScope.Cluster(),
                end, Duration.ofHours(5), Duration.ofMinutes(10));
        for (Measure measure : List.of(Measure.TREND_FUNNEL_TOTAL, Measure.TREND_FUNNEL_ALLOCATED,
                Measure.TREND_FUNNEL_ACTIVE, Measure.TREND_FUNNEL_EFFECTIVE)) {
            Trend recorded = fromRecords.of(measure).getFirst();
            Trend raw = computed.of(measure).getFirst();
            assertTrue(recorded.provenance().expression().contains("hami_observe:funnel_cards_"),
                    measure + " read from " + recorded.provenance().expression());
            assertFalse(raw.provenance().expression().contains("hami_observe:funnel_cards_"), measure.name());
            assertEquals(31, raw.size(), measure.name());
            assertEquals(java.util.Arrays.toString(raw.values()), java.util.Arrays.toString(recorded.values()),
                    measure.name());
        }
        // 1 card; 0.3 + 0.2 + 0.5 cards blocked (the larger of memory and cores); the two with use
        // (llm 20-29 % of a 0.3 share, the trainer 70 % of a 0.5 share) active and effective.
        assertEquals(1, fromRecords.of(Measure.TREND_FUNNEL_TOTAL).getFirst().values()[30], 1e-9);
        assertEquals(1.0, fromRecords.of(Measure.TREND_FUNNEL_ALLOCATED).getFirst().values()[30], 1e-9);
        assertEquals(0.8, fromRecords.of(Measure.TREND_FUNNEL_ACTIVE).getFirst().values()[30], 1e-9);
        assertEquals(0.8, fromRecords.of(Measure.TREND_FUNNEL_EFFECTIVE).getFirst().values()[30], 1e-9);

        // A day reaching back before the history: the records of the hours with history serve it
        // (before them neither path has a figure).
        TrendSet day = fromRecorded.trends(new TrendScope.Cluster(),
                end, Duration.ofHours(24), Duration.ofMinutes(6));
        TrendSet rawDay = fromRaw.trends(new TrendScope.Cluster(),
                end, Duration.ofHours(24), Duration.ofMinutes(6));
        Trend dayAllocated = day.of(Measure.TREND_FUNNEL_ALLOCATED).getFirst();
        assertTrue(dayAllocated.provenance().expression().contains("hami_observe:funnel_cards_"));
        assertEquals(java.util.Arrays.toString(rawDay.of(Measure.TREND_FUNNEL_ALLOCATED).getFirst().values()),
                java.util.Arrays.toString(dayAllocated.values()));

        // Past the group's last run (the records end an hour after the history): the steps it no
        // longer served read the raw series, the others its records, and the chart says both.
        TrendSet later = fromRecorded.trends(new TrendScope.Cluster(),
                Instant.ofEpochSecond(at + 5400), Duration.ofHours(1), Duration.ofMinutes(5));
        TrendSet rawLater = fromRaw.trends(new TrendScope.Cluster(),
                Instant.ofEpochSecond(at + 5400), Duration.ofHours(1), Duration.ofMinutes(5));
        assertEquals(RecordedSteps.expression(FleetQueries.FUNNEL_ALLOCATED.bind("cluster", new PromQl.Label("cluster")),
                        FleetQueries.RECORDED_FUNNEL_ALLOCATED.plain()),
                later.of(Measure.TREND_FUNNEL_ALLOCATED).getFirst().provenance().expression());
        assertEquals(java.util.Arrays.toString(rawLater.of(Measure.TREND_FUNNEL_ALLOCATED).getFirst().values()),
                java.util.Arrays.toString(later.of(Measure.TREND_FUNNEL_ALLOCATED).getFirst().values()));
    }

    @Test
    void aMissedRunOfTheFunnelGroupIsBridgedAndAGroupThatStoppedIsNot() throws Exception {
        // The same history, with the funnel's records written as its group would have, every five
        // minutes 17 s into the interval: one run missed in the fifth hour (as promtool's backfill
        // misses one at the end of a two-hour block, or Prometheus an iteration that overran), then
        // none for half an hour in the seventh (the group stopped).
        long base = at - HOURS.toSeconds();
        long missed = base + 4 * 3600 + 17;
        long stopped = base + 6 * 3600 + 17;
        long resumed = stopped + 1800;
        Path file = Files.createTempFile("hami-observe-funnel-runs", ".om");
        LocalPrometheus gapped = null;
        try {
            try (History series = new History(file, base + 30, at - 30, 60)) {
                fleet(series, base);
                Map<String, Double> records = new LinkedHashMap<>();
                records.put(RecordingRules.FUNNEL_HEALTHY, 1.0);
                records.put(RecordingRules.FUNNEL_ALLOCATED, 1.0);
                records.put(RecordingRules.FUNNEL_ACTIVE, 0.8);
                records.put(RecordingRules.FUNNEL_EFFECTIVE, 0.8);
                records.put(RecordingRules.EVALUATED, 1.0);
                for (Map.Entry<String, Double> record : records.entrySet()) {
                    Map<String, String> labels = record.getKey().equals(RecordingRules.EVALUATED)
                            ? Map.of("group", RecordingRules.Group.FUNNEL.label) : Map.of();
                    long every = RecordingRules.FUNNEL_INTERVAL.toSeconds();
                    series.series(record.getKey(), labels, base + 17, missed - every, every, t -> record.getValue())
                            .series(record.getKey(), labels, missed + every, stopped - every, every,
                                    t -> record.getValue())
                            .series(record.getKey(), labels, resumed, at, every, t -> record.getValue());
                }
            }
            gapped = LocalPrometheus.start(List.of(), Duration.ofSeconds(60), List.of(file), Duration.ofSeconds(60));
            PrometheusFleetHistory fromGapped = PrometheusFleetHistory.at(gapped.url(), Duration.ofSeconds(20));

            // Two hours around the missed run, a step a minute: the records serve every step, the
            // steps just after the missed run from the run before it.
            Instant aroundTheMiss = Instant.ofEpochSecond(base + 5 * 3600);
            TrendSet bridged = fromGapped.trends(
                    new TrendScope.Cluster(), aroundTheMiss, Duration.ofHours(2),
                    Duration.ofMinutes(1));
            TrendSet computed = fromRaw.trends(
                    new TrendScope.Cluster(), aroundTheMiss, Duration.ofHours(2),
                    Duration.ofMinutes(1));
            for (Measure measure : List.of(Measure.TREND_FUNNEL_TOTAL, Measure.TREND_FUNNEL_ALLOCATED,
                    Measure.TREND_FUNNEL_ACTIVE, Measure.TREND_FUNNEL_EFFECTIVE)) {
                Trend recorded = bridged.of(measure).getFirst();
                assertTrue(recorded.provenance().expression().contains("hami_observe:funnel_cards_"),
                        measure + " read from " + recorded.provenance().expression());
                assertEquals(121, computed.of(measure).getFirst().size(), measure.name());
                assertEquals(java.util.Arrays.toString(computed.of(measure).getFirst().values()),
                        java.util.Arrays.toString(recorded.values()), measure.name());
            }

            // Two hours holding the half hour without runs: the steps past the last run's lookback
            // read the raw series, the others the records; each step the figure the raw series give.
            Instant aroundTheStop = Instant.ofEpochSecond(base + 7 * 3600);
            Trend spliced = fromGapped.trends(new TrendScope.Cluster(), aroundTheStop, Duration.ofHours(2),
                    Duration.ofMinutes(1)).of(Measure.TREND_FUNNEL_ALLOCATED).getFirst();
            assertEquals(RecordedSteps.expression(FleetQueries.FUNNEL_ALLOCATED.bind("cluster",
                    new PromQl.Label("cluster")), FleetQueries.RECORDED_FUNNEL_ALLOCATED.plain()),
                    spliced.provenance().expression());
            assertEquals(java.util.Arrays.toString(fromRaw.trends(new TrendScope.Cluster(), aroundTheStop,
                            Duration.ofHours(2), Duration.ofMinutes(1)).of(Measure.TREND_FUNNEL_ALLOCATED).getFirst()
                            .values()), java.util.Arrays.toString(spliced.values()));
        } finally {
            Files.deleteIfExists(file);
            if (gapped != null) {
                gapped.close();
            }
        }
    }
}
