package io.hamiobserve.domain.fleet;

import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalDouble;

/**
 * What is stuck at one instant: shares held by pods with no live owner (ghosts), use of a card no
 * share covers (zombies), shares whose container has launched no kernel for the idle threshold,
 * and pods waiting for a GPU. Each ghost and zombie carries its age and the card-hours it has held
 * (share size, {@link io.hamiobserve.domain.ShareSize}, times age). Sorted, most card-hours first.
 *
 * @param at         the instant
 * @param idleAfter  how long without a kernel makes a share idle (the console's {@code --idle-hours})
 * @param provenance the query of each measure
 */
public record Stuck(Instant at, Duration idleAfter, List<GhostShare> ghosts, List<Zombie> zombies, List<Idle> idle,
                    List<PendingGroup> pending, Map<Measure, Provenance> provenance) {
    public Stuck {
        Objects.requireNonNull(at, "at");
        Objects.requireNonNull(idleAfter, "idleAfter");
        ghosts = ghosts.stream().sorted(Comparator.comparingDouble((GhostShare g) -> -g.cardHours(at).orElse(0))
                .thenComparing(GhostShare::namespace).thenComparing(GhostShare::pod)
                .thenComparing(GhostShare::uuid)).toList();
        zombies = zombies.stream().sorted(Comparator.comparingDouble((Zombie z) -> -z.cardHours(at).orElse(0))
                .thenComparing(Zombie::node).thenComparing(Zombie::uuid).thenComparing(Zombie::pod)
                .thenComparing(Zombie::container)).toList();
        idle = idle.stream().sorted(Comparator.comparingDouble((Idle i) -> -i.lastKernelAgeSeconds())
                .thenComparing(Idle::namespace).thenComparing(Idle::pod).thenComparing(Idle::container)).toList();
        pending = pending.stream().sorted(Comparator.comparing(PendingGroup::namespace)
                .thenComparing(PendingGroup::reason)).toList();
        provenance = Map.copyOf(provenance);
    }

    /** Nothing stuck, as a source that keeps no such series says. */
    public static Stuck none(Instant at, Duration idleAfter) {
        return new Stuck(at, idleAfter, List.of(), List.of(), List.of(), List.of(), Map.of());
    }

    /** Seconds from {@code since} (unix seconds) to {@code at}, never below zero, never NaN. */
    static double age(Instant at, double sinceEpochSeconds) {
        double age = at.getEpochSecond() + at.getNano() / 1e9 - sinceEpochSeconds;
        return Double.isFinite(age) && age > 0 ? age : 0.0;
    }

    /**
     * A share held by a pod with no live owner ({@code hami_observe_ghost_allocation_*}).
     *
     * @param reason {@code deleting} or {@code never_started}, as exported
     * @param cards  the share's size in cards; empty when the exporter gives none
     */
    public record GhostShare(String namespace, String pod, String node, String uuid, String reason,
                             double sinceEpochSeconds, OptionalDouble cards) {
        public double ageSeconds(Instant at) {
            return age(at, sinceEpochSeconds);
        }

        /** Card-hours held since the condition began. */
        public OptionalDouble cardHours(Instant at) {
            return cards.isPresent() ? OptionalDouble.of(cards.getAsDouble() * ageSeconds(at) / 3600.0)
                    : OptionalDouble.empty();
        }
    }

    /**
     * Memory on a card outside HAMi-Core that no share of that card covers.
     *
     * @param namespace           empty for a process of no known pod
     * @param firstSeenEpochSeconds when the node's exporter first saw it; empty when not reported
     * @param cardMemoryBytes     the card's memory, to tell the card-worth; empty when unknown
     */
    public record Zombie(String node, String uuid, String namespace, String pod, String container, double memoryBytes,
                         OptionalDouble firstSeenEpochSeconds, OptionalDouble cardMemoryBytes) {
        public OptionalDouble ageSeconds(Instant at) {
            return firstSeenEpochSeconds.isPresent() ? OptionalDouble.of(age(at, firstSeenEpochSeconds.getAsDouble()))
                    : OptionalDouble.empty();
        }

        /** The card-worth of its memory (at most one card) times its age in hours. */
        public OptionalDouble cardHours(Instant at) {
            OptionalDouble age = ageSeconds(at);
            if (age.isEmpty() || cardMemoryBytes.isEmpty() || !(cardMemoryBytes.getAsDouble() > 0)) {
                return OptionalDouble.empty();
            }
            double cards = Math.min(1.0, Math.max(0.0, memoryBytes / cardMemoryBytes.getAsDouble()));
            return OptionalDouble.of(cards * age.getAsDouble() / 3600.0);
        }
    }

    /** A container holding a share that has launched no kernel for at least the idle threshold. */
    public record Idle(String namespace, String pod, String container, String node, String uuid,
                       double lastKernelAgeSeconds) {
    }

    /** Pods of one namespace waiting for a GPU for one reason ({@code hami_observe_pending_gpu_pods}). */
    public record PendingGroup(String namespace, String reason, long pods, double oldestWaitSeconds) {
    }
}
