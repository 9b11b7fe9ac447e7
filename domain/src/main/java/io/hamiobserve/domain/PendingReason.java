package io.hamiobserve.domain;

import java.util.List;

/**
 * Why a pod that requests a HAMi resource is not placed, as a bounded set of label values: the
 * pod's {@code PodScheduled} condition (its reason and message, which kube-scheduler fills with the
 * failures HAMi's scheduler extender returns per node, e.g. {@code 1/4 CardInsufficientMemory})
 * mapped onto what a platform team acts on. The raw message never becomes a label value.
 *
 * <p><b>Several reasons in one message.</b> kube-scheduler joins every node's failure into one
 * message ("0/5 nodes are available: 2 node(s) didn't match Pod's node affinity/selector, 3 1/4
 * CardInsufficientMemory"). The pod gets the first of this enum's order that the message names:
 * quota first (nothing fits until the namespace's quota frees, whatever the cards hold), then no
 * card of the requested type (buying or labelling, not freeing, helps), then memory before cores
 * (memory is what a share cannot borrow), then node affinity, else {@link #OTHER}. The order is a
 * fixed precedence, never a count of nodes, so a crafted message cannot steer the choice by
 * repetition and the result does not depend on where in the message a phrase sits.
 *
 * <p><b>Hostile messages.</b> Only the first {@link #MAX_SCANNED_CHARS} characters are read (an
 * API server's messages are far shorter; a megabyte costs the same as a line). Phrases are matched
 * exactly, case-sensitive, as HAMi and kube-scheduler write them: a look-alike (another script's
 * letters, a zero-width joiner inside a word) does not match and counts as {@link #OTHER}.
 */
public enum PendingReason {
    /** A {@code ResourceQuota}: HAMi's GPU quota ({@code ResourceQuotaNotFit}) or Kubernetes's ("exceeded quota"). */
    QUOTA("quota", List.of("ResourceQuotaNotFit", "exceeded quota")),
    /**
     * No card of the requested type, UUID, mode or rule anywhere it looked ({@code CardTypeMismatch},
     * {@code CardUUIDMismatch}, {@code ModeNotFit}, {@code CardNotFoundCustomFilterRule},
     * {@code NodeInsufficientDevice}: fewer cards on the node than the pod asks for).
     */
    NO_CARD_OF_TYPE("no_card_of_type", List.of("CardTypeMismatch", "CardUUIDMismatch", "ModeNotFit",
            "CardNotFoundCustomFilterRule", "NodeInsufficientDevice")),
    /** Cards of the type, without the memory the share asks ({@code CardInsufficientMemory}). */
    INSUFFICIENT_MEMORY("insufficient_memory", List.of("CardInsufficientMemory")),
    /** Cards of the type, without the cores the share asks ({@code CardInsufficientCore}, Ascend's compute units). */
    INSUFFICIENT_CORES("insufficient_cores", List.of("CardInsufficientCore", "CardComputeUnitsExhausted")),
    /** kube-scheduler's node affinity or node selector filter. */
    NODE_AFFINITY("node_affinity", List.of("didn't match Pod's node affinity", "node affinity/selector",
            "NodeAffinity")),
    /** Unschedulable for another reason (taints, sharing slots exhausted, NUMA, unhealthy cards, ...) or gated. */
    OTHER("other", List.of()),
    /** No {@code PodScheduled=False} condition yet: the scheduler has not tried the pod, or is binding it. */
    NOT_YET_TRIED("not_yet_tried", List.of());

    /** How much of a condition message is read. */
    public static final int MAX_SCANNED_CHARS = 16 * 1024;

    private final String label;
    private final List<String> phrases;

    PendingReason(String label, List<String> phrases) {
        this.label = label;
        this.phrases = phrases;
    }

    /** The label value ({@code reason} label of {@code hami_observe_pending_gpu_pods}). */
    public String label() {
        return label;
    }

    /**
     * The reason for a pod's {@code PodScheduled} condition.
     *
     * @param status  the condition's status ({@code True}, {@code False}, {@code Unknown}); null
     *                when the pod has no such condition
     * @param reason  the condition's reason ({@code Unschedulable}, {@code SchedulingGated}, ...); may be null
     * @param message the condition's message; may be null, of any length and content
     */
    public static PendingReason of(String status, String reason, String message) {
        if (!"False".equals(status)) {
            return NOT_YET_TRIED;
        }
        if (message == null || message.isEmpty() || !"Unschedulable".equals(reason)) {
            // SchedulingGated, a scheduler's own reason, or an empty message: nothing to map from.
            return OTHER;
        }
        String scanned = message.length() > MAX_SCANNED_CHARS ? message.substring(0, MAX_SCANNED_CHARS) : message;
        for (PendingReason candidate : values()) {
            for (String phrase : candidate.phrases) {
                if (scanned.contains(phrase)) {
                    return candidate;
                }
            }
        }
        return OTHER;
    }
}
