package io.hamiobserve.domain;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.Arrays;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The mapping of a {@code PodScheduled} condition onto the bounded reasons, real messages and hostile ones. */
class PendingReasonTest {
    private static final String MEGABYTE = "x".repeat(1 << 20);

    static Stream<Arguments> conditions() {
        return Stream.of(
                // What kube-scheduler writes with HAMi's extender failures (GenReason's "n/m Reason").
                Arguments.of("HAMi memory", "False", "Unschedulable",
                        "0/3 nodes are available: 3 1/4 CardInsufficientMemory.", PendingReason.INSUFFICIENT_MEMORY),
                Arguments.of("HAMi cores", "False", "Unschedulable",
                        "0/1 nodes are available: 1 4/4 CardInsufficientCore.", PendingReason.INSUFFICIENT_CORES),
                Arguments.of("Ascend compute units", "False", "Unschedulable",
                        "0/1 nodes are available: 1 2/2 CardComputeUnitsExhausted.", PendingReason.INSUFFICIENT_CORES),
                Arguments.of("card type", "False", "Unschedulable",
                        "0/2 nodes are available: 2 8/8 CardTypeMismatch.", PendingReason.NO_CARD_OF_TYPE),
                Arguments.of("card UUID", "False", "Unschedulable",
                        "0/2 nodes are available: 2 1/1 CardUUIDMismatch.", PendingReason.NO_CARD_OF_TYPE),
                Arguments.of("HAMi quota", "False", "Unschedulable",
                        "0/2 nodes are available: 2 ResourceQuotaNotFit.", PendingReason.QUOTA),
                Arguments.of("node affinity", "False", "Unschedulable",
                        "0/5 nodes are available: 5 node(s) didn't match Pod's node affinity/selector. "
                                + "preemption: 0/5 nodes are available: 5 Preemption is not helpful for scheduling.",
                        PendingReason.NODE_AFFINITY),
                Arguments.of("taint", "False", "Unschedulable",
                        "0/1 nodes are available: 1 node(s) had untolerated taint {gpu: true}.", PendingReason.OTHER),
                Arguments.of("NUMA", "False", "Unschedulable", "0/1 nodes are available: 1 2/2 NumaNotFit.",
                        PendingReason.OTHER),
                // Several reasons: the fixed precedence picks, not the order or the counts.
                Arguments.of("affinity before memory in the text", "False", "Unschedulable",
                        "0/5 nodes are available: 4 node(s) didn't match Pod's node affinity/selector, "
                                + "1 1/4 CardInsufficientMemory.", PendingReason.INSUFFICIENT_MEMORY),
                Arguments.of("cores and memory", "False", "Unschedulable",
                        "0/2 nodes are available: 1 4/4 CardInsufficientCore, 1 4/4 CardInsufficientMemory.",
                        PendingReason.INSUFFICIENT_MEMORY),
                Arguments.of("every reason, quota wins", "False", "Unschedulable",
                        "CardInsufficientCore CardInsufficientMemory CardTypeMismatch NodeAffinity ResourceQuotaNotFit",
                        PendingReason.QUOTA),
                Arguments.of("memory repeated five hundred times, type once", "False", "Unschedulable",
                        "CardInsufficientMemory, ".repeat(500) + "CardTypeMismatch", PendingReason.NO_CARD_OF_TYPE),
                // Not unschedulable, or not tried.
                Arguments.of("no condition", null, null, null, PendingReason.NOT_YET_TRIED),
                Arguments.of("scheduled, binding", "True", null, "CardInsufficientMemory", PendingReason.NOT_YET_TRIED),
                Arguments.of("status unknown", "Unknown", "Unschedulable", "CardInsufficientMemory",
                        PendingReason.NOT_YET_TRIED),
                Arguments.of("gated", "False", "SchedulingGated", "Scheduling is blocked due to non-empty scheduling gates",
                        PendingReason.OTHER),
                Arguments.of("another reason with a memory message", "False", "SchedulerError",
                        "CardInsufficientMemory", PendingReason.OTHER),
                Arguments.of("no message", "False", "Unschedulable", null, PendingReason.OTHER),
                Arguments.of("empty message", "False", "Unschedulable", "", PendingReason.OTHER),
                // Hostile messages.
                Arguments.of("a megabyte, then the reason", "False", "Unschedulable", MEGABYTE + "CardInsufficientMemory",
                        PendingReason.OTHER),
                Arguments.of("the reason, then a megabyte", "False", "Unschedulable",
                        "1 1/4 CardInsufficientMemory " + MEGABYTE, PendingReason.INSUFFICIENT_MEMORY),
                Arguments.of("a reason across the scanned limit", "False", "Unschedulable",
                        "y".repeat(PendingReason.MAX_SCANNED_CHARS - 6) + "CardInsufficientMemory",
                        PendingReason.OTHER),
                Arguments.of("newlines and quotes", "False", "Unschedulable",
                        "0/1 nodes\n\"}\nreason=\"quota\"\n1 1/4 CardInsufficientCore\r\n", PendingReason.INSUFFICIENT_CORES),
                Arguments.of("a label injection", "False", "Unschedulable",
                        "\"} hami_observe_pending_gpu_pods{reason=\"evil", PendingReason.OTHER),
                Arguments.of("Cyrillic look-alike o", "False", "Unschedulable", "CardInsufficientMem\u043ery",
                        PendingReason.OTHER),
                Arguments.of("zero-width joiner inside", "False", "Unschedulable", "CardInsufficient\u200dMemory",
                        PendingReason.OTHER),
                Arguments.of("right-to-left override before", "False", "Unschedulable",
                        "\u202e1 1/4 CardInsufficientMemory", PendingReason.INSUFFICIENT_MEMORY),
                Arguments.of("lower case", "False", "Unschedulable", "cardinsufficientmemory", PendingReason.OTHER),
                Arguments.of("lone surrogate and NUL", "False", "Unschedulable", "\ud800\u0000CardTypeMismatch",
                        PendingReason.NO_CARD_OF_TYPE),
                Arguments.of("a word that merely says quota", "False", "Unschedulable", "quota quota quota",
                        PendingReason.OTHER));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("conditions")
    void conditionsMapOntoTheBoundedSet(String name, String status, String reason, String message,
                                        PendingReason expected) {
        assertEquals(expected, PendingReason.of(status, reason, message));
    }

    @Test
    void labelsAreFewAndLabelSafe() {
        Set<String> labels = Arrays.stream(PendingReason.values()).map(PendingReason::label).collect(Collectors.toSet());
        assertEquals(Set.of("insufficient_memory", "insufficient_cores", "no_card_of_type", "quota", "node_affinity",
                "other", "not_yet_tried"), labels);
        Pattern safe = Pattern.compile("[a-z_]+");
        labels.forEach(label -> assertTrue(safe.matcher(label).matches(), label));
    }
}
