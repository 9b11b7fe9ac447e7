package io.hamiobserve.domain;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.Optional;
import java.util.stream.Stream;

import static io.hamiobserve.domain.Fixtures.app;
import static io.hamiobserve.domain.Fixtures.placement;
import static io.hamiobserve.domain.Fixtures.pod;
import static io.hamiobserve.domain.Fixtures.share;
import static io.hamiobserve.domain.PodLifecycle.UNKNOWN_TIME;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The ghost rule: which placed pods hold a share with no live owner, of what reason, from when. */
class GhostTest {
    private static final long PLACED = 1_700_000_000_000L;
    private static final long DELETION = PLACED + 3_600_000L;

    static Stream<Arguments> pods() {
        return Stream.of(
                Arguments.of("running, started", PodPhase.RUNNING, life(PLACED, false, UNKNOWN_TIME, true), null, 0L),
                Arguments.of("pending, image still pulling", PodPhase.PENDING, life(PLACED, false, UNKNOWN_TIME, false),
                        GhostReason.NEVER_STARTED, PLACED),
                Arguments.of("running phase, no container ever ran", PodPhase.RUNNING,
                        life(PLACED, false, UNKNOWN_TIME, false), GhostReason.NEVER_STARTED, PLACED),
                Arguments.of("being deleted", PodPhase.RUNNING, life(PLACED, true, DELETION, true),
                        GhostReason.DELETING, DELETION),
                // Deleting wins over never started: the owner asked for the pod to go.
                Arguments.of("deleted before it started", PodPhase.PENDING, life(PLACED, true, DELETION, false),
                        GhostReason.DELETING, DELETION),
                Arguments.of("deleting, timestamp unreadable: from placement", PodPhase.RUNNING,
                        life(PLACED, true, UNKNOWN_TIME, true), GhostReason.DELETING, PLACED),
                Arguments.of("deleting, no moment known at all", PodPhase.RUNNING,
                        life(UNKNOWN_TIME, true, UNKNOWN_TIME, true), null, 0L),
                Arguments.of("never started, placement unknown", PodPhase.PENDING,
                        life(UNKNOWN_TIME, false, UNKNOWN_TIME, false), null, 0L),
                // HAMi releases these: the ledger drops them, and the rule agrees.
                Arguments.of("succeeded, still annotated", PodPhase.SUCCEEDED, life(PLACED, true, DELETION, false),
                        null, 0L),
                Arguments.of("failed", PodPhase.FAILED, life(PLACED, false, UNKNOWN_TIME, false), null, 0L),
                // A phase string never seen reads as UNKNOWN, which holds the share: judged by its facts alone.
                Arguments.of("phase never seen, started", PodPhase.parse("Zombified"),
                        life(PLACED, false, UNKNOWN_TIME, true), null, 0L),
                Arguments.of("phase never seen, deleting", PodPhase.parse("\u0000Running\u202e"),
                        life(PLACED, true, DELETION, true), GhostReason.DELETING, DELETION),
                // Absurd timestamps are facts like any other: kept, never an overflow.
                Arguments.of("deletion at the end of time", PodPhase.RUNNING,
                        life(PLACED, true, Long.MAX_VALUE, true), GhostReason.DELETING, Long.MAX_VALUE),
                Arguments.of("placed before the epoch", PodPhase.PENDING,
                        life(Long.MIN_VALUE + 1, false, UNKNOWN_TIME, false), GhostReason.NEVER_STARTED,
                        Long.MIN_VALUE + 1),
                Arguments.of("no lifecycle read (a snapshot of older form)", PodPhase.RUNNING,
                        PodLifecycle.NOT_KNOWN, null, 0L));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("pods")
    void judgesEachPod(String name, PodPhase phase, PodLifecycle life, GhostReason reason, long since) {
        Optional<Ghost> ghost = Ghost.of(placed(phase, life));
        if (reason == null) {
            assertTrue(ghost.isEmpty(), () -> name + ": " + ghost);
        } else {
            assertEquals(Optional.of(new Ghost(reason, since)), ghost, name);
        }
    }

    @Test
    void ageIsZeroBeforeTheConditionAndNeverOverflows() {
        Ghost deleting = new Ghost(GhostReason.DELETING, DELETION);
        assertEquals(0.0, deleting.ageSeconds(DELETION - 30_000), "within the grace period");
        assertEquals(90.0, deleting.ageSeconds(DELETION + 90_000));
        Ghost ancient = new Ghost(GhostReason.NEVER_STARTED, Long.MIN_VALUE + 1);
        double age = ancient.ageSeconds(Long.MAX_VALUE);
        assertTrue(age > 1.8e16 && Double.isFinite(age), "a difference wider than a long: " + age);
        assertEquals(0.0, new Ghost(GhostReason.DELETING, Long.MAX_VALUE).ageSeconds(PLACED));
        assertTrue(Double.isFinite(new Ghost(GhostReason.DELETING, Long.MAX_VALUE).sinceEpochSeconds()));
    }

    @Test
    void aDeletionMomentWithoutDeletingIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> life(PLACED, false, DELETION, true));
    }

    @Test
    void reasonLabelsAreBoundedAndLabelSafe() {
        for (GhostReason reason : GhostReason.values()) {
            assertTrue(reason.label().matches("[a-z_]+"), reason.label());
        }
        assertEquals(2, GhostReason.values().length);
    }

    @Test
    void theLedgerKeepsTheLifecycleSoAChangeIsAChange() {
        Ledger ledger = new Ledger();
        PodPlacement started = placed(PodPhase.RUNNING, life(PLACED, false, UNKNOWN_TIME, true));
        ledger.putPod(started);
        long before = ledger.version();
        ledger.putPod(started.withLifecycle(life(PLACED, true, DELETION, true)));
        assertFalse(ledger.version() == before, "a deletion must render the node again");
        assertEquals(GhostReason.DELETING, Ghost.of(ledger.view().pods().get(0)).orElseThrow().reason());
    }

    private static PodLifecycle life(long placed, boolean deleting, long deletion, boolean started) {
        return new PodLifecycle(placed, deleting, deletion, started);
    }

    private static PodPlacement placed(PodPhase phase, PodLifecycle life) {
        return placement(pod("team", "p"), "node-a", phase, true, app(0, "main", share("GPU-1", 1024, 10)))
                .withLifecycle(life);
    }
}
