package io.hamiobserve.console;

import io.hamiobserve.domain.fleet.FleetReadings;
import io.hamiobserve.domain.fleet.FleetScope;
import io.hamiobserve.domain.fleet.FleetState;
import io.hamiobserve.ports.SourceUnavailableException;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The console's cache under a flood of narrowed pages and a read that never ends. */
class FleetCacheTest {
    private static final Instant NOW = Instant.parse("2026-11-30T12:00:00Z");

    @Test
    void theRecordOfVisitedWindowsStaysBoundedWhateverWindowsItIsAsked() throws Exception {
        // The pages ask for the four windows they offer only (a request naming another is refused
        // before any read); a caller that passed any window still cannot grow the record unbounded.
        FleetCache cache = new FleetCache(new FixedHistory(), Duration.ofSeconds(5), Duration.ofSeconds(5));
        for (int i = 1; i <= 3 * FleetCache.MAX_ENTRIES; i++) {
            cache.usage(NOW, Duration.ofMinutes(i), Duration.ofHours(3), FleetScope.EVERYTHING);
        }
        int visited = cache.visitedUsage(Duration.ofHours(3), Duration.ofDays(1)).size();
        assertTrue(visited > 0 && visited <= FleetCache.MAX_ENTRIES, "windows noted: " + visited);
        assertTrue(cache.visitedUsage(Duration.ofHours(3), Duration.ofDays(1))
                .contains(Duration.ofMinutes(3L * FleetCache.MAX_ENTRIES)), "the latest visit is kept");
        // The background refresh's own reads are not visits.
        FleetCache keeper = cache.renewing(Duration.ofMinutes(2));
        keeper.cardHours(NOW, Duration.ofDays(30));
        assertTrue(cache.visitedCardHours(Duration.ofDays(1)).isEmpty());
    }

    @Test
    void aFloodOfNarrowedPagesNeverDropsTheRefreshsAnswers() throws Exception {
        FixedHistory history = new FixedHistory();
        FleetCache cache = new FleetCache(history, Duration.ofSeconds(5), Duration.ofSeconds(5));
        FleetCache keeper = cache.renewing(Duration.ofMinutes(2));
        keeper.state(NOW, FleetScope.EVERYTHING);
        keeper.state(NOW, FleetScope.CARDS_ONLY);
        for (int i = 0; i < 3 * FleetCache.MAX_ENTRIES; i++) {
            cache.state(NOW, new FleetScope.OnNode("flood-" + i));
        }
        assertTrue(cache.size() <= FleetCache.MAX_ENTRIES + 1, "kept " + cache.size());
        // Prometheus is down now: the fleet-wide pages are still served from what the refresh read.
        history.failure = "connection refused";
        int calls = history.calls.get();
        FleetState everything = cache.state(NOW, FleetScope.EVERYTHING);
        cache.state(NOW, FleetScope.CARDS_ONLY);
        assertEquals(calls, history.calls.get(), "a kept fleet-wide answer was dropped and read again");
        assertFalse(everything.workloads().isEmpty());
        // The most recently used narrowed answer is kept; the least recently used were dropped.
        cache.state(NOW, new FleetScope.OnNode("flood-" + (3 * FleetCache.MAX_ENTRIES - 1)));
        assertEquals(calls, history.calls.get(), "the latest narrowed answer was dropped");
        assertThrows(SourceUnavailableException.class, () -> cache.state(NOW, new FleetScope.OnNode("flood-0")));
    }

    @Test
    void aReadSlowerThanAPageWaitsIsJoinedUntilItIsWedgedThenAskedAgainAndReported() throws Exception {
        FixedHistory history = new FixedHistory();
        CountDownLatch never = new CountDownLatch(1);
        history.gate = never;
        // A page waits 0.2 s; a read is taken for wedged after ten of those, 2 s.
        FleetCache cache = new FleetCache(history, Duration.ofSeconds(5), Duration.ofMillis(200));
        long started = System.nanoTime();
        SourceUnavailableException late = assertThrows(SourceUnavailableException.class,
                () -> cache.state(NOW, FleetScope.EVERYTHING));
        assertTrue((System.nanoTime() - started) / 1e9 < 1.5, "waited " + (System.nanoTime() - started) / 1e9 + " s");
        assertTrue(late.getMessage().contains("have not arrived after 0.2 s"), late.getMessage());
        assertEquals(1, history.calls.get());
        // Past a page's wait, the read is slow, not wedged: the next request joins it (asking it
        // again beside itself would double the engine's work), waits its own 0.2 s, and the cache
        // is not reported wedged.
        Thread.sleep(300);
        long joined = System.nanoTime();
        assertThrows(SourceUnavailableException.class, () -> cache.state(NOW, FleetScope.EVERYTHING));
        assertTrue((System.nanoTime() - joined) / 1e9 >= 0.19, "a request joining a read in flight for "
                + "longer than its wait waited " + (System.nanoTime() - joined) / 1e9 + " s, not its own 0.2 s");
        assertEquals(1, history.calls.get(), "a read slower than a page waits was asked again beside itself");
        assertTrue(cache.wedged().isEmpty(), cache.wedged().toString());
        // Past ten waits it is wedged: reported, so readiness can, and not joined any more.
        while ((System.nanoTime() - started) / 1e9 < 2.2) {
            Thread.sleep(50);
        }
        assertTrue(cache.wedged().orElseThrow().contains("1 read has been in flight"), cache.wedged().toString());
        assertTrue(cache.wedged().orElseThrow().contains("for more than 2.0 s"), cache.wedged().toString());
        // Prometheus answers again: the wedged read is not joined, a new one is asked and answers.
        history.gate = null;
        assertFalse(cache.state(NOW, FleetScope.EVERYTHING).workloads().isEmpty());
        assertEquals(2, history.calls.get());
        assertTrue(cache.wedged().isEmpty(), cache.wedged().toString());
        never.countDown();
    }

    @Test
    void readsRunTogetherAreWaitedForNoLongerThanOnePageWaits() {
        // A page waits 0.2 s. Two reads together, answering after 0.15 and 0.35 s: the second is
        // not given a wait of its own once the first has answered.
        FleetCache cache = new FleetCache(new FixedHistory(), Duration.ofSeconds(5), Duration.ofMillis(200));
        long started = System.nanoTime();
        SourceUnavailableException late = assertThrows(SourceUnavailableException.class,
                () -> cache.all(java.util.List.of(() -> answerAfter(150), () -> answerAfter(350))));
        double waited = (System.nanoTime() - started) / 1e9;
        assertTrue(waited < 0.3, "waited " + waited + " s for reads a page waits 0.2 s for");
        assertTrue(late.getMessage().contains("have not arrived after 0.2 s"), late.getMessage());
    }

    private static void answerAfter(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException stopped) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void aChartReadAgainAsksOnlyForItsNewAndUnsettledStepsAndEqualsAWholeRead() throws Exception {
        FixedHistory history = new FixedHistory();
        FleetCache keeper = new FleetCache(history, Duration.ofSeconds(5), Duration.ofSeconds(5))
                .renewing(Duration.ofMinutes(2));
        io.hamiobserve.domain.fleet.TimeRange day = io.hamiobserve.domain.fleet.TimeRange.DAY;
        io.hamiobserve.domain.fleet.TrendScope cluster = new io.hamiobserve.domain.fleet.TrendScope.Cluster();
        Instant at = NOW.plusSeconds(30);
        keeper.trends(cluster, at, day.length(), day.step());
        assertEquals(java.util.List.of(241), history.trendSteps, "the first read is the whole day");
        // A refresh a minute on, another, then one past the next step (6 min): the kept chart is
        // continued from the step still settling at the last read (within FleetCache.SETTLING).
        java.util.List<Integer> readsAsked = new java.util.ArrayList<>();
        for (int minutes : new int[] {1, 2, 7, 8, 30}) {
            Instant later = at.plus(Duration.ofMinutes(minutes));
            history.trendSteps.clear();
            io.hamiobserve.domain.fleet.TrendSet continued = keeper.trends(cluster, later, day.length(), day.step());
            java.util.List<Integer> asked = java.util.List.copyOf(history.trendSteps);
            assertEquals(history.trends(cluster, later, day.length(), day.step()), continued, "at +" + minutes + " min");
            // At most the new steps and the one still settling (a read asks for two steps at least).
            assertTrue(asked.size() <= 1 && asked.stream().allMatch(steps -> steps <= 2 + minutes / 6),
                    "asked for " + asked + " steps at +" + minutes + " min");
            readsAsked.addAll(asked);
        }
        // +1 (12:01:30): the step of 12:00, still settling at the first read (12:00:30), with the one
        // before; +2: nothing; +7: the step of 12:06 (read 90 s after it, so settled); +8: nothing;
        // +30: the four steps since.
        assertEquals(java.util.List.of(2, 2, 4), readsAsked);
    }

    @Test
    void theRefreshReadsEveryContainerOnceAndServesTheCardsPagesFromIt() throws Exception {
        FixedHistory history = new FixedHistory();
        FleetCache cache = new FleetCache(history, Duration.ofSeconds(5), Duration.ofSeconds(5));
        // This history answers every scope with every container: its nodes count the workloads listed.
        FleetState direct = FleetState.of(history.readings(NOW, FleetScope.EVERYTHING));
        history.scopes.clear();
        cache.renewing(Duration.ofMinutes(2)).fleetNow(NOW);
        assertEquals(java.util.List.of(FleetScope.EVERYTHING), history.scopes, "one read, of every container");
        FleetState cards = cache.state(NOW, FleetScope.CARDS_ONLY);
        assertEquals(java.util.List.of(FleetScope.EVERYTHING), history.scopes, "the cards' view was read again");
        assertTrue(cards.workloads().isEmpty(), "the cards' view lists no containers");
        assertEquals(direct.nodes(), cards.nodes(), "containers counted per node as the listed ones are");
        assertEquals(direct.cards().stream().map(card -> card.uuid() + " " + card.memoryAllocated()).toList(),
                cards.cards().stream().map(card -> card.uuid() + " " + card.memoryAllocated()).toList());

        // The read fails: a page of cards says so, as the read it is served from failed.
        history.failure = "connection refused";
        assertThrows(SourceUnavailableException.class, () -> cache.renewing(Duration.ofMinutes(2)).fleetNow(NOW));
        try (AutoCloseable tracking = cache.track()) {
            cache.state(NOW, FleetScope.CARDS_ONLY);
            assertTrue(cache.failureOfThisRequest().orElseThrow().message().contains("connection refused"));
        }
    }

    @Test
    void aClustersSummaryIsTheFleetWideOneKeptWhileThatIsServed() throws Exception {
        FixedHistory whole = new FixedHistory();
        FixedHistory east = new FixedHistory();
        whole.summariesCluster = "east";
        FleetCache fleet = new FleetCache(whole, Duration.ofSeconds(5), Duration.ofSeconds(5));
        FleetCache eastOnly = new FleetCache(east, Duration.ofSeconds(5), Duration.ofSeconds(5), fleet, "east");
        FleetCache westOnly = new FleetCache(new FixedHistory(), Duration.ofSeconds(5), Duration.ofSeconds(5), fleet,
                "west");
        Duration window = io.hamiobserve.domain.fleet.RightSizing.DEFAULT_WINDOW;
        Duration settled = io.hamiobserve.domain.fleet.RightSizing.MIN_HISTORY;
        io.hamiobserve.domain.fleet.UsageHistory all = fleet.renewing(Duration.ofMinutes(2))
                .usage(NOW, window, settled, FleetScope.EVERYTHING);
        assertEquals(all.shares(), eastOnly.usage(NOW, window, settled, FleetScope.EVERYTHING).shares());
        assertTrue(westOnly.usage(NOW, window, settled, FleetScope.EVERYTHING).shares().isEmpty());
        assertEquals(0, east.summaryCalls.get(), "served from the fleet-wide answer");
        // Another window than the kept one, and a narrowed scope, are the cluster's own reads.
        eastOnly.usage(NOW, Duration.ofDays(30), settled, FleetScope.EVERYTHING);
        eastOnly.usage(NOW, window, settled, new FleetScope.OnNode("node-a"));
        assertEquals(2, east.summaryCalls.get());

        // The fleet-wide read fails again: its kept answer is still served, to its pages and to east's.
        whole.failure = "connection refused";
        assertThrows(SourceUnavailableException.class, () -> fleet.renewing(Duration.ofMinutes(2))
                .usage(NOW, window, settled, FleetScope.EVERYTHING));
        assertEquals(all.shares(), eastOnly.usage(NOW, window, settled, FleetScope.EVERYTHING).shares());
        assertEquals(all.at(), eastOnly.usage(NOW, window, settled, FleetScope.EVERYTHING).at(),
                "the instant the fleet-wide answer describes, which the page says");
        assertEquals(2, east.summaryCalls.get());
    }

    /** The fleet-wide history of an engine holding cluster east: every figure of now and over a window labelled east. */
    private static FixedHistory wholeWithEast() {
        FixedHistory whole = new FixedHistory();
        whole.summariesCluster = "east";
        whole.alter = FleetCacheTest::labelledEast;
        return whole;
    }

    @Test
    void aClustersPageAwaitsTheFleetWideReadInFlightRatherThanAskingItsOwnBesideIt() throws Exception {
        FixedHistory whole = wholeWithEast();
        FixedHistory east = new FixedHistory();
        // A page waits 1 s; the fleet-wide reads are slow (a console started moments ago).
        FleetCache fleet = new FleetCache(whole, Duration.ofSeconds(5), Duration.ofSeconds(1));
        Duration window = io.hamiobserve.domain.fleet.RightSizing.DEFAULT_WINDOW;
        Duration settled = io.hamiobserve.domain.fleet.RightSizing.MIN_HISTORY;
        CountDownLatch slow = new CountDownLatch(1);
        whole.summaryGate = slow;
        whole.gate = slow;
        FleetCache round = fleet.renewing(Duration.ofMinutes(2), Duration.ofSeconds(30));
        fleet.ahead(() -> round.usage(NOW, window, settled, FleetScope.EVERYTHING));
        fleet.ahead(() -> round.fleetNow(NOW));
        while (whole.calls.get() < 2) {
            Thread.sleep(5);
        }
        // Still in flight past the page's wait: the page says so and asks nothing of its own.
        FleetCache eastOnly = new FleetCache(east, Duration.ofSeconds(5), Duration.ofSeconds(1), fleet, "east");
        long started = System.nanoTime();
        SourceUnavailableException late = assertThrows(SourceUnavailableException.class,
                () -> eastOnly.usage(NOW, window, settled, FleetScope.EVERYTHING));
        double waited = (System.nanoTime() - started) / 1e9;
        assertTrue(waited >= 0.95 && waited < 1.8, "waited " + waited + " s");
        assertTrue(late.getMessage().contains("the figures of every cluster, this one's among them, asked of")
                && late.getMessage().contains("have not arrived after 1.0 s"), late.getMessage());
        assertEquals(0, east.calls.get(), "a cluster's own read asked beside the fleet-wide one in flight");
        // Arriving within the page's wait: the page is served them narrowed, its own never asked.
        var usage = inBackground(() -> eastOnly.usage(NOW, window, settled, FleetScope.EVERYTHING));
        var now = inBackground(() -> eastOnly.state(NOW, FleetScope.EVERYTHING));
        Thread.sleep(300);
        assertFalse(usage.isDone() || now.isDone());
        slow.countDown();
        assertEquals(2, usage.get(5, java.util.concurrent.TimeUnit.SECONDS).shares().size());
        assertFalse(now.get(5, java.util.concurrent.TimeUnit.SECONDS).workloads().isEmpty());
        assertEquals(0, east.calls.get(), "a cluster's own read asked beside the fleet-wide one in flight");

        // The fleet-wide read in flight fails: the cluster's page reads its own, within its wait.
        CountDownLatch failing = new CountDownLatch(1);
        whole.gate = failing;
        whole.failure = "connection refused";
        Duration other = Duration.ofDays(30);
        int before = whole.calls.get();
        fleet.ahead(() -> round.cardHours(NOW, other));
        while (whole.calls.get() == before) {
            Thread.sleep(5);
        }
        var hours = inBackground(() -> eastOnly.cardHours(NOW, other));
        Thread.sleep(200);
        assertEquals(0, east.calls.get());
        failing.countDown();
        assertFalse(hours.get(5, java.util.concurrent.TimeUnit.SECONDS).cards().isEmpty());
        assertEquals(1, east.summaryCalls.get(), "the cluster's own read once the fleet-wide one failed");
    }

    @Test
    void aClustersPageDoesNotAwaitAFleetWideReadThatIsWedged() throws Exception {
        // An engine that took the fleet-wide reads and never answers them (a socket that never
        // speaks): past ten of a page's waits they are wedged, and a cluster's page no longer
        // waits for them; it reads its own, which answers.
        FixedHistory whole = wholeWithEast();
        FixedHistory east = new FixedHistory();
        CountDownLatch never = new CountDownLatch(1);
        whole.gate = never;
        FleetCache fleet = new FleetCache(whole, Duration.ofSeconds(5), Duration.ofMillis(200));
        FleetCache round = fleet.renewing(Duration.ofMinutes(2));
        Duration window = io.hamiobserve.domain.fleet.RightSizing.DEFAULT_WINDOW;
        Duration settled = io.hamiobserve.domain.fleet.RightSizing.MIN_HISTORY;
        fleet.ahead(() -> round.usage(NOW, window, settled, FleetScope.EVERYTHING));
        fleet.ahead(() -> round.fleetNow(NOW));
        long asked = System.nanoTime();
        while (whole.calls.get() < 2) {
            Thread.sleep(5);
        }
        FleetCache eastOnly = new FleetCache(east, Duration.ofSeconds(5), Duration.ofMillis(200), fleet, "east");
        while ((System.nanoTime() - asked) / 1e9 < 2.2) {
            Thread.sleep(50);
        }
        assertTrue(fleet.wedged().orElseThrow().contains("2 reads have been in flight"), fleet.wedged().toString());
        // Awaited, they would end each page in "have not arrived after 0.2 s" instead.
        assertEquals(2, eastOnly.usage(NOW, window, settled, FleetScope.EVERYTHING).shares().size());
        assertFalse(eastOnly.state(NOW, FleetScope.EVERYTHING).workloads().isEmpty());
        assertEquals(1, east.summaryCalls.get());
        assertEquals(java.util.List.of(FleetScope.EVERYTHING), east.scopes);
        never.countDown();
    }

    @Test
    void aClustersFleetNowIsTheFleetWideReadingsKeptWhereEachItemNamesItsCluster() throws Exception {
        FixedHistory whole = new FixedHistory();
        FixedHistory east = new FixedHistory();
        FixedHistory west = new FixedHistory();
        // The fixed fleet is east's; every series of it carries its cluster label.
        whole.alter = FleetCacheTest::labelledEast;
        FleetCache fleet = new FleetCache(whole, Duration.ofSeconds(5), Duration.ofSeconds(5));
        FleetCache eastOnly = new FleetCache(east, Duration.ofSeconds(5), Duration.ofSeconds(5), fleet, "east");
        FleetCache westOnly = new FleetCache(west, Duration.ofSeconds(5), Duration.ofSeconds(5), fleet, "west");
        // Before the refresh has kept anything, a cluster's page reads its own.
        eastOnly.state(NOW, FleetScope.EVERYTHING);
        assertEquals(java.util.List.of(FleetScope.EVERYTHING), east.scopes);

        fleet.renewing(Duration.ofMinutes(2)).fleetNow(NOW);
        FleetState direct = FleetState.of(labelledEast(new FixedHistory().readings(NOW, FleetScope.EVERYTHING)));
        FleetState eastNow = new FleetCache(east, Duration.ofSeconds(5), Duration.ofSeconds(5), fleet, "east")
                .state(NOW, FleetScope.EVERYTHING);
        assertEquals(direct.workloads(), eastNow.workloads());
        assertEquals(direct.cards(), eastNow.cards());
        assertEquals(direct.namespaces(), eastNow.namespaces());
        FleetState eastCards = eastOnly.state(NOW, FleetScope.CARDS_ONLY);
        assertEquals(direct.nodes(), eastCards.nodes(), "containers counted per node from the kept shares");
        assertTrue(eastCards.workloads().isEmpty());
        FleetState westNow = westOnly.state(NOW, FleetScope.EVERYTHING);
        assertTrue(westNow.cards().isEmpty() && westNow.workloads().isEmpty(), westNow.toString());
        assertEquals(java.util.List.of(FleetScope.EVERYTHING), east.scopes, "no read of east's own since");
        assertTrue(west.scopes.isEmpty(), west.scopes.toString());
        // Narrowed once per readings kept, not per visit; again once the refresh keeps newer ones.
        assertSame(eastCards, eastOnly.state(NOW, FleetScope.CARDS_ONLY));
        fleet.renewing(Duration.ofMinutes(2)).fleetNow(NOW);
        assertNotSame(eastCards, eastOnly.state(NOW, FleetScope.CARDS_ONLY));

        // Readings with a series that names no cluster (here: every container name) cannot be
        // placed: the cluster's page reads its own.
        whole.alter = readings -> {
            FleetReadings labelled = labelledEast(readings);
            return new FleetReadings(labelled.at(), labelled.registered(), labelled.hosts(), labelled.allocations(),
                    readings.names(), labelled.uses(), labelled.unmanaged(), labelled.quotas(), labelled.sources(),
                    labelled.ledgerAges(), labelled.skips(), labelled.targetsDown(), labelled.containersByNode(),
                    labelled.provenance());
        };
        fleet.renewing(Duration.ofMinutes(2)).fleetNow(NOW);
        FleetCache later = new FleetCache(east, Duration.ofSeconds(5), Duration.ofSeconds(5), fleet, "east");
        later.state(NOW, FleetScope.EVERYTHING);
        assertEquals(java.util.List.of(FleetScope.EVERYTHING, FleetScope.EVERYTHING), east.scopes);
    }

    /** {@code read}'s answer, read on a thread of its own (not the common pool's, one thread on two cores): a page's request that this test goes on beside. */
    private static <T> CompletableFuture<T> inBackground(FleetCache.Answer<T> read) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return read.get();
            } catch (SourceUnavailableException failed) {
                throw new java.util.concurrent.CompletionException(failed);
            }
        }, Thread.ofVirtual()::start);
    }

    /** {@code r} as an engine of several clusters answers it: every series of cluster east. */
    private static FleetReadings labelledEast(FleetReadings r) {
        return new FleetReadings(r.at(),
                r.registered().stream().map(card -> new FleetReadings.Registered(card.node(), card.uuid(),
                        card.index(), card.model(), card.mode(), card.healthy(), card.memoryTotal(),
                        card.memoryAllocated(), card.coresTotal(), card.coresAllocated(), card.slotsUsed(),
                        card.slotsTotal(), card.coresAllocatedPercent(), "east")).toList(),
                r.hosts(),
                r.allocations().stream().map(a -> new FleetReadings.Allocation(a.namespace(), a.pod(),
                        a.containerIndex(), a.node(), a.uuid(), a.memory(), a.cores(), "east")).toList(),
                r.names().stream().map(n -> new FleetReadings.ContainerName(n.namespace(), n.pod(), n.containerIndex(),
                        n.container(), n.init(), "east")).toList(),
                r.uses(), r.unmanaged(),
                r.quotas().stream().map(q -> new FleetReadings.Quota(q.namespace(), q.resource(), q.used(), q.limit(),
                        "east")).toList(),
                r.sources().stream().map(s -> new FleetReadings.SourceStatus(s.instance(), s.node(), s.source(),
                        s.ok(), "east")).toList(),
                r.ledgerAges().stream().map(age -> new FleetReadings.LedgerAge(age.instance(), age.seconds(), "east"))
                        .toList(),
                r.skips(), r.targetsDown(), r.containersByNode(), r.provenance());
    }
}
