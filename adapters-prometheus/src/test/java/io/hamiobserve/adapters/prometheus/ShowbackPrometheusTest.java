package io.hamiobserve.adapters.prometheus;

import io.hamiobserve.domain.fleet.CardAccrual;
import io.hamiobserve.domain.fleet.CardHours;
import io.hamiobserve.domain.fleet.Funnel;
import io.hamiobserve.domain.fleet.Measure;
import io.hamiobserve.domain.fleet.Prices;
import io.hamiobserve.domain.fleet.ShareAccrual;
import io.hamiobserve.domain.fleet.Showback;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Showback against a real Prometheus loaded with a simulated week (promtool backfill): four cards,
 * one unhealthy for half the week and one the node sees but the ledger never registered, and three
 * shares; the report's rows sum to the fleet's card-hours exactly, and each figure is the one the
 * week was written to give.
 */
class ShowbackPrometheusTest {
    private static final double GIB = 1024.0 * 1024 * 1024;
    private static final long HOUR = 3600;
    private static Instant to;
    private static LocalPrometheus prometheus;
    private static PrometheusFleetHistory history;
    /** The same week with the console's recording rules evaluated over it: showback reads the hourly records. */
    private static LocalPrometheus recordedPrometheus;
    private static PrometheusFleetHistory recorded;

    @BeforeAll
    static void startPrometheusWithAWeek() throws Exception {
        Assumptions.assumeTrue(LocalPrometheus.binary().isPresent(), "prometheus is not installed");
        // Half past an hour: the hourly steps of the week are then 168 whichever end of a range is open.
        long end = (Instant.now().getEpochSecond() / HOUR) * HOUR - 2 * HOUR + 1800;
        to = Instant.ofEpochSecond(end);
        long start = end - 169 * HOUR;
        long unhealthyUntil = end - 84 * HOUR;
        Path file = Files.createTempFile("showback-week", ".om");
        // The shares run on for an hour after the reports' end, as they do in a cluster: the rules'
        // run after it records a whole hour (a window that ended before a run reads that record).
        try (History week = new History(file, start, end + HOUR, 300)) {
            card(week, "node-a", "GPU-1", "A100-SXM4-80GB", 80);
            card(week, "node-a", "GPU-2", "A100-SXM4-80GB", 80);
            card(week, "node-b", "GPU-3", "L4", 24);
            week.series("hami_observe_gpu_healthy", labels("node", "node-a", "device_uuid", "GPU-2", "mode", "hami-core"),
                    t -> t < unhealthyUntil ? 0 : 1);
            for (String uuid : List.of("GPU-1", "GPU-2", "GPU-3", "GPU-4")) {
                week.series("hami_host_gpu_memory_used_bytes",
                        labels("node", uuid.equals("GPU-1") || uuid.equals("GPU-2") ? "node-a" : "node-b", "device_uuid", uuid),
                        t -> GIB);
            }
            share(week, start, "train", "trainer-0", "trainer", "node-a", "GPU-1", 20, 50, 30.0, "StatefulSet", "trainer");
            share(week, start, "infer", "api-xyz", "server", "node-a", "GPU-1", 40, 10, 80.0, "Deployment", "api");
            share(week, end - 24 * HOUR, "infer", "api-abc", "server", "node-b", "GPU-3", 6, 20, null, "Deployment", "api");
        }
        try {
            prometheus = LocalPrometheus.start(List.of(), Duration.ofSeconds(60), List.of(file), Duration.ofSeconds(60));
            // Now and then promtool's evaluation over a Prometheus just started finds no history and
            // records nothing (seen on the loaded build machine): one more start, then the test says so.
            for (int attempt = 0; attempt < 2 && (recordedPrometheus == null || runs().equals("[]")); attempt++) {
                if (recordedPrometheus != null) {
                    recordedPrometheus.close();
                }
                recordedPrometheus = LocalPrometheus.startRecorded(List.of(), Duration.ofSeconds(60), List.of(file),
                        Duration.ofSeconds(60));
            }
        } finally {
            Files.deleteIfExists(file);
        }
        history = PrometheusFleetHistory.at(prometheus.url(), Duration.ofSeconds(30));
        recorded = PrometheusFleetHistory.at(recordedPrometheus.url(), Duration.ofSeconds(30));
    }

    @AfterAll
    static void stop() {
        if (prometheus != null) {
            prometheus.close();
        }
        if (recordedPrometheus != null) {
            recordedPrometheus.close();
        }
    }

    @Test
    void aWeekOfRowsAddsUpToTheFleetExactly() throws Exception {
        CardHours week = history.cardHours(to.minus(Duration.ofDays(7)), to);
        for (Showback.Grouping by : Showback.Grouping.values()) {
            Showback report = week.report(by, Prices.NONE);
            Showback.Fleet fleet = report.fleet();
            assertEquals(fleet.seen(), fleet.used() + fleet.allocatedIdle() + fleet.unallocated() + fleet.unavailable(),
                    by.label());
            assertEquals(fleet.used() + fleet.allocatedIdle(),
                    report.rows().stream().mapToLong(Showback.Row::allocatedTicks).sum(), by.label());
        }
        Showback.Fleet fleet = week.report(Showback.Grouping.NAMESPACE, Prices.NONE).fleet();
        assertEquals(4 * 168.0, Showback.Fleet.hours(fleet.seen()), 1e-6);
        // GPU-2 unhealthy for 84 hours, GPU-4 never registered.
        assertEquals(84 + 168.0, Showback.Fleet.hours(fleet.unavailable()), 1e-6);
        // 0.5 + 0.5 of GPU-1 all week, 0.25 of GPU-3 for a day.
        assertEquals(0.3 * 168 + 0.5 * 168, Showback.Fleet.hours(fleet.used()), 1e-6);
        assertEquals(168 + 6 - (0.3 * 168 + 0.5 * 168), Showback.Fleet.hours(fleet.allocatedIdle()), 1e-6);
        assertEquals(84 + 162.0, Showback.Fleet.hours(fleet.unallocated()), 1e-6);
        assertEquals(0, fleet.overbooked());
        assertTrue(week.provenance().get(Measure.SHARE_CARD_SECONDS_ALLOCATED).expression().contains("clamp_max"));
    }

    @Test
    void sharesAreChargedTheLargerOfMemoryAndCoresByWorkloadModelAndPrice() throws Exception {
        CardHours week = history.cardHours(to.minus(Duration.ofDays(7)), to);
        Map<String, Showback.Row> workloads = rows(week.report(Showback.Grouping.WORKLOAD, Prices.NONE));
        assertEquals(84 + 6.0, workloads.get("infer/Deployment/api").allocatedCardHours(), 1e-6);
        assertEquals(84.0, workloads.get("train/StatefulSet/trainer").allocatedCardHours(), 1e-6);
        // 20 GiB of 80 for the week beside 50 % of the cores: memory GiB-hours and core-hours shown apart.
        assertEquals(20 * 168.0, workloads.get("train/StatefulSet/trainer").memoryGibHours(), 1e-6);
        assertEquals(0.5 * 168, workloads.get("train/StatefulSet/trainer").coreHours(), 1e-6);
        Map<String, Showback.Row> models = rows(week.report(Showback.Grouping.MODEL, Prices.NONE));
        assertEquals(168.0, models.get("A100-SXM4-80GB").allocatedCardHours(), 1e-6);
        assertEquals(6.0, models.get("L4").allocatedCardHours(), 1e-6);
        assertEquals(174.0, rows(week.report(Showback.Grouping.CLUSTER, Prices.NONE)).get("east").allocatedCardHours(), 1e-6);
        Showback priced = week.report(Showback.Grouping.NAMESPACE, new Prices(Map.of("A100-SXM4-80GB", 2.0, "L4", 0.5)));
        assertEquals(84 * 2.0 + 6 * 0.5, rows(priced).get("infer").cost().orElseThrow(), 1e-6);
        assertEquals(6 * 0.5, rows(priced).get("infer").idleCost().orElseThrow(), 1e-6);
    }

    @Test
    void theFunnelInCardsWorth() throws Exception {
        CardHours week = history.cardHours(to.minus(Duration.ofDays(7)), to);
        Funnel fleet = Funnel.of(week, Showback.Grouping.MODEL).getFirst();
        // 4 cards seen, 84 + 168 of their hours unavailable; GPU-1 fully held and used well; GPU-3 a day at 0.25, unused.
        assertEquals((672 - 252) / 168.0, fleet.total(), 1e-6);
        assertEquals(174 / 168.0, fleet.allocated(), 1e-6);
        assertEquals(1.0, fleet.active(), 1e-6);
        assertEquals(1.0, fleet.effective(), 1e-6);
        assertEquals(List.of(new Funnel.Loss("allocated → active", "infer", "Deployment/api", 6 / 168.0)),
                Funnel.losses(week, 5).stream().map(loss -> new Funnel.Loss(loss.stage(), loss.namespace(),
                        loss.workload(), Math.round(loss.cards() * 168 * 1e6) / 1e6 / 168)).toList());
    }

    @Test
    void theHourlyRecordsGiveTheRawSeriesFiguresAndTheIdentityStillHoldsExactly() throws Exception {
        // A window that ended before the rules' last run: whole hours from the records, the minutes
        // before and after them from the records of their hours, scaled; no raw instant.
        CardHours fromRecords = recorded.cardHours(to.minus(Duration.ofDays(7)), to);
        for (Measure measure : INTEGRALS) {
            String read = fromRecords.provenance().get(measure).expression();
            assertTrue(read.contains(":sum_1h[") && read.contains("\"head\"") && read.contains("\"tail\"")
                    && !read.contains("ms:"), () -> read + " read; the rules ran " + runs());
        }
        // Each card's model and each pod's owner from their hourly records (with the raw last
        // hour), never from every raw sample of the window.
        CardHours fromRaw = history.cardHours(to.minus(Duration.ofDays(7)), to);
        for (Measure measure : List.of(Measure.CARD_MODELS, Measure.POD_OWNERS)) {
            String read = fromRecords.provenance().get(measure).expression();
            assertTrue(read.contains(":last_1h") && read.contains("[1h]"), () -> read + " read; the rules ran " + runs());
            assertTrue(!fromRaw.provenance().get(measure).expression().contains(":last_1h"), measure.name());
        }
        assertRecordsGiveTheRawFigures(to.minus(Duration.ofDays(7)), to, 0.1);
    }

    @Test
    void aRunStampedAfterTheWallClockIsNotTakenForTheNextRun() throws Exception {
        // The rules here ran an hour past the week's end. Read as if the wall clock stood at the
        // week's end, that run lies ahead of it, as a run a replay stamped ahead of time does: the
        // minutes after the last run within the window come from the raw series at the window's
        // end, not from that run's record.
        String lookback = "[" + RecordingRules.LOOKBACK + "]";
        CardHours atTheEnd = recorded.readingTheWallClock(java.time.Clock.fixed(to, java.time.ZoneOffset.UTC))
                .cardHours(to.minus(Duration.ofDays(7)), to);
        CardHours later = recorded.cardHours(to.minus(Duration.ofDays(7)), to);
        for (Measure measure : INTEGRALS) {
            String guarded = atTheEnd.provenance().get(measure).expression();
            assertTrue(guarded.contains(":sum_1h[") && guarded.contains("\"tail\"") && guarded.contains(lookback),
                    () -> guarded + " read; the rules ran " + runs());
            String read = later.provenance().get(measure).expression();
            assertFalse(read.contains(lookback), () -> read + " read; the rules ran " + runs());
        }
        // Either way every figure reads the same steps: the identity holds exactly.
        Showback.Fleet fleet = atTheEnd.report(Showback.Grouping.NAMESPACE, Prices.NONE).fleet();
        assertEquals(fleet.seen(), fleet.used() + fleet.allocatedIdle() + fleet.unallocated() + fleet.unavailable());
    }

    @Test
    void aWindowEndingNowReadsTheMinutesAfterTheLastRunFromTheRawSeries() throws Exception {
        // No run has recorded the hour after the last one yet: those minutes are the raw series as
        // they stand at the window's end (no subquery: its one step lies elsewhere on each engine).
        Instant now = Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
        CardHours fromRecords = recorded.cardHours(now.minus(Duration.ofDays(7)), now);
        // The records end with promtool's evaluation, an hour after the history: where the group's
        // offset into the hour falls after that end and before now's minute, its last run is more
        // than an hour (the week's step) back, and those minutes are read at each hourly step.
        PrometheusApi api = new PrometheusApi(recordedPrometheus.url(), Duration.ofSeconds(30));
        double lastRun = PrometheusApi.await(api.instant(new PromQl.Template("last_run", "max_over_time(timestamp("
                + RecordingRules.EVALUATED + "{group=\"showback\"})[2h:1m])").plain(), now)).getFirst().value();
        boolean withinTheStep = now.getEpochSecond() - lastRun <= HOUR;
        for (Measure measure : INTEGRALS) {
            String read = fromRecords.provenance().get(measure).expression();
            assertTrue(read.contains(":sum_1h[") && read.contains("\"tail\"") && read.contains("ms:") != withinTheStep,
                    () -> read + " read (" + (withinTheStep ? "the minutes since the last run as they stand now"
                            : "at each hourly step") + " expected); the rules ran " + runs());
        }
        // The history ends half an hour past an hour, which the records count to their step (and
        // five minutes' lookback) and the raw week's hourly steps not at all: up to 35 minutes of
        // each share apart, within the bound each share is held to.
        assertRecordsGiveTheRawFigures(now.minus(Duration.ofDays(7)), now, 3 * 35 / 60.0);
    }

    @Test
    void everyShapeOfTheRecordedReadIsOneThePrometheusAccepts() throws Exception {
        // A window that ends at a run (a monthly report to midnight, over rules that run on the
        // hour, as vmalert aligns them) has no minutes after the records: no tail and no offset,
        // which PromQL refuses at zero ("offset 0ms"). Each shape, sent as the console sends it.
        PrometheusApi api = new PrometheusApi(recordedPrometheus.url(), Duration.ofSeconds(30));
        for (FleetQueries.Integral integral : FleetQueries.cardHours(RecordingRules.CLUSTER_LABEL).integrals()) {
            for (boolean head : List.of(false, true)) {
                for (FleetQueries.Tail tail : FleetQueries.Tail.values()) {
                    long tailMs = tail == FleetQueries.Tail.NONE ? 0 : 1_800_000;
                    PromQl.Query query = integral.recorded(head, tail).bind(Map.of("recordedMs", 3 * 3_600_000 - 1,
                            "recordedOffsetMs", tailMs, "headOffsetMs", tailMs + 3 * 3_600_000, "headFraction", 0.5,
                            "tailMs", tailMs - 1, "tailStepMs", tailMs, "tailStepSeconds", tailMs / 1000.0,
                            "tailSeconds", tailMs / 1000.0, "tailFraction", 0.5));
                    assertEquals(tail != FleetQueries.Tail.NONE, query.expression().contains("offset " + tailMs + "ms"),
                            query.expression());
                    assertFalse(PrometheusApi.await(api.instant(query, to)).isEmpty(), query.expression());
                }
            }
        }
    }

    private static final List<Measure> INTEGRALS = List.of(Measure.CARD_SECONDS_SEEN, Measure.CARD_SECONDS_UNAVAILABLE,
            Measure.SHARE_CARD_SECONDS_ALLOCATED, Measure.SHARE_CARD_SECONDS_USED, Measure.SHARE_MEMORY_SECONDS,
            Measure.SHARE_CORE_SECONDS);

    /**
     * Showback over {@code (from, to]} read from the records equals the raw series' within what the
     * ends may move, and its rows still add up exactly.
     */
    private static void assertRecordsGiveTheRawFigures(Instant from, Instant to, double fleetUsedHoursApart)
            throws Exception {
        CardHours fromRaw = history.cardHours(from, to);
        CardHours fromRecords = recorded.cardHours(from, to);
        for (Measure measure : INTEGRALS) {
            assertTrue(!fromRaw.provenance().get(measure).expression().contains(":sum_1h"), measure.name());
        }
        // The records integrate at five-minute steps (RecordingRules.SHOWBACK_STEP), the raw week at
        // hourly ones: a state that changes (a share starting, a card turning healthy) may be a step
        // apart at either end of it. At each end, under an hour that no whole record holds: before
        // the records, their hour's record scaled to them; after, one raw instant times their length.
        // A state that changed within either may be up to that much apart at each: under half an
        // hour each in these windows.
        double apart = 2 * RecordingRules.SHOWBACK_STEP.toSeconds() + 2 * 1800;
        Map<String, CardAccrual> rawCards = fromRaw.cards().stream().collect(Collectors.toMap(CardAccrual::uuid, c -> c));
        assertEquals(rawCards.keySet(), fromRecords.cards().stream().map(CardAccrual::uuid).collect(Collectors.toSet()));
        for (CardAccrual card : fromRecords.cards()) {
            CardAccrual raw = rawCards.get(card.uuid());
            assertEquals(raw.model(), card.model());
            assertEquals(raw.seenSeconds(), card.seenSeconds(), apart, card.uuid());
            assertEquals(raw.unavailableSeconds(), card.unavailableSeconds(), apart, card.uuid());
        }
        Map<String, ShareAccrual> rawShares = fromRaw.shares().stream().collect(Collectors.toMap(ShareAccrual::pod, s -> s));
        assertEquals(rawShares.keySet(), fromRecords.shares().stream().map(ShareAccrual::pod).collect(Collectors.toSet()));
        for (ShareAccrual share : fromRecords.shares()) {
            ShareAccrual raw = rawShares.get(share.pod());
            assertEquals(raw.ownerName(), share.ownerName());
            assertEquals(raw.allocatedCardSeconds(), share.allocatedCardSeconds(), apart, share.pod());
            assertEquals(raw.usedCardSeconds(), share.usedCardSeconds(), apart, share.pod());
            assertEquals(raw.memoryByteSeconds(), share.memoryByteSeconds(), apart * 40 * GIB, share.pod());
            assertEquals(raw.corePercentSeconds(), share.corePercentSeconds(), apart * 100, share.pod());
        }
        assertEquals(Showback.Fleet.hours(fromRaw.report(Showback.Grouping.NAMESPACE, Prices.NONE).fleet().used()),
                Showback.Fleet.hours(fromRecords.report(Showback.Grouping.NAMESPACE, Prices.NONE).fleet().used()),
                fleetUsedHoursApart);
        for (Showback.Grouping by : Showback.Grouping.values()) {
            Showback report = fromRecords.report(by, Prices.NONE);
            Showback.Fleet fleet = report.fleet();
            assertEquals(fleet.seen(), fleet.used() + fleet.allocatedIdle() + fleet.unallocated() + fleet.unavailable(),
                    by.label());
            assertEquals(fleet.used() + fleet.allocatedIdle(),
                    report.rows().stream().mapToLong(Showback.Row::allocatedTicks).sum(), by.label());
        }
    }

    /** Each rule group's runs over the history, and its last, as the recorded Prometheus holds them. */
    private static String runs() {
        try {
            PrometheusApi api = new PrometheusApi(recordedPrometheus.url(), Duration.ofSeconds(30));
            return PrometheusApi.await(api.instant(new PromQl.Template("runs", "count_over_time("
                    + RecordingRules.EVALUATED + "[8d]) or max_over_time(timestamp(" + RecordingRules.EVALUATED
                    + ")[8d:1m])").plain(), to)) + "; promtool said: " + recordedPrometheus.recordingLog();
        } catch (Exception failed) {
            return failed.toString();
        }
    }

    private static Map<String, Showback.Row> rows(Showback report) {
        return report.rows().stream().collect(Collectors.toMap(Showback.Row::key, row -> row));
    }

    private static Map<String, String> labels(String... pairs) {
        Map<String, String> labels = new HashMap<>();
        labels.put("cluster", "east");
        for (int i = 0; i < pairs.length; i += 2) {
            labels.put(pairs[i], pairs[i + 1]);
        }
        return labels;
    }

    private static void card(History week, String node, String uuid, String model, double gib) throws Exception {
        week.series("hami_gpu_memory_limit_bytes",
                labels("node", node, "device_uuid", uuid, "device_index", "0", "device_type", model), t -> gib * GIB);
    }

    private static void share(History week, long from, String namespace, String pod, String container, String node,
                              String uuid, double gib, double cores, Double utilisation, String ownerKind,
                              String ownerName) throws Exception {
        // What the scheduler role writes: HAMi's pod series and the container's name and pod's owner
        // (hami_observe_pod_owner is opt-in) for every pod,
        // the per-container detail only where HAMi's series cannot tell the containers apart.
        // trainer-0 stands for such a pod (an init container held 2 GiB and 10 % more of the card
        // while it ran, so HAMi's series, the pod's effective use, are larger than the container's
        // share): its detail must win over its pod series. The others' shares are their pod series.
        boolean detailed = pod.equals("trainer-0");
        double podGib = detailed ? gib + 2 : gib;
        double podCores = detailed ? cores + 10 : cores;
        Map<String, String> hami = labels("namespace", namespace, "pod", pod, "container_index", "0", "node", node,
                "device_uuid", uuid, "zone", "vGPU");
        week.series("hami_vgpu_memory_allocated_bytes", hami, from, t -> podGib * GIB)
                .series("hami_vgpu_core_allocated_ratio", hami, from, t -> podCores)
                .series("hami_observe_container_info", labels("namespace", namespace, "pod", pod, "node", node,
                        "container_index", "0", "container", container, "init", "false", "owner_kind", ownerKind,
                        "owner_name", ownerName), from, t -> 1);
        if (detailed) {
            Map<String, String> detail = labels("namespace", namespace, "pod", pod, "container_index", "0",
                    "container", container, "node", node, "device_uuid", uuid);
            week.series("hami_observe_vgpu_container_memory_allocated_bytes", detail, from, t -> gib * GIB)
                    .series("hami_observe_vgpu_container_core_allocated_ratio", detail, from, t -> cores);
        }
        if (utilisation != null) {
            week.series("hami_container_device_utilization_ratio", labels("namespace", namespace, "pod", pod,
                    "container", container, "node", node, "device_uuid", uuid), from, t -> utilisation);
        }
    }
}
