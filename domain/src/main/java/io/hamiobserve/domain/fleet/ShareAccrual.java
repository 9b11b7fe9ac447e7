package io.hamiobserve.domain.fleet;

import java.util.Objects;

/**
 * One container's share of one card over a window, integrated at the source's step: the card
 * fraction it blocked ({@link ShareSize}) and the part of that it used (its utilisation of the
 * card, at most its size at each step), in card-seconds; and beside them, the memory and cores it
 * held, in byte-seconds and percent-seconds (100 percent-seconds: one card's cores for a second).
 *
 * @param ownerKind the pod's top controller's kind ({@code owner_kind} of {@code hami_observe_container_info}), {@code Pod} without one
 * @param ownerName its name, the pod's own without one
 * @param active    whether it used its card at all in the window's last {@link Funnel#ACTIVE} (the funnel's "active")
 */
public record ShareAccrual(String cluster, String namespace, String ownerKind, String ownerName, String pod,
                           String container, String node, String cardUuid, double allocatedCardSeconds,
                           double usedCardSeconds, double memoryByteSeconds, double corePercentSeconds,
                           boolean active) {
    public ShareAccrual {
        Objects.requireNonNull(cluster);
        Objects.requireNonNull(namespace);
        Objects.requireNonNull(ownerKind);
        Objects.requireNonNull(ownerName);
        Objects.requireNonNull(pod);
        Objects.requireNonNull(container);
        Objects.requireNonNull(node);
        Objects.requireNonNull(cardUuid);
    }

    /** A share whose recent use is not known: counted as not active. */
    public ShareAccrual(String cluster, String namespace, String ownerKind, String ownerName, String pod,
                        String container, String node, String cardUuid, double allocatedCardSeconds,
                        double usedCardSeconds, double memoryByteSeconds, double corePercentSeconds) {
        this(cluster, namespace, ownerKind, ownerName, pod, container, node, cardUuid, allocatedCardSeconds,
                usedCardSeconds, memoryByteSeconds, corePercentSeconds, false);
    }

    /** The workload as an operator names it: {@code Deployment/llm}, or {@code Pod/<pod>} without a controller. */
    public String workload() {
        return ownerKind + "/" + ownerName;
    }
}
