package io.hamiobserve.domain.fleet;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Each container's use of each card over a window, summarised where the samples are (Prometheus
 * computes the peak and the percentile; only the summary travels).
 *
 * @param at      the window's end
 * @param window  how far back it looks
 * @param settledAfter the age a sample must have to count in {@link ShareHistory#settledSamples()}
 * @param shares  one summary per container and card
 * @param provenance the query behind each measure
 */
public record UsageHistory(Instant at, Duration window, Duration settledAfter, List<ShareHistory> shares,
                           Map<WorkloadGroup, Long> workloadHours, Map<Measure, Provenance> provenance) {
    public UsageHistory {
        Objects.requireNonNull(at);
        shares = List.copyOf(shares);
        workloadHours = Map.copyOf(workloadHours);
        provenance = Map.copyOf(provenance);
    }

    /** A history that does not know the hours each workload has samples in (each pod's hours stand in). */
    public UsageHistory(Instant at, Duration window, Duration settledAfter, List<ShareHistory> shares,
                        Map<Measure, Provenance> provenance) {
        this(at, window, settledAfter, shares, Map.of(), provenance);
    }

    /**
     * One container's use of one card over the window.
     *
     * @param memoryPeak           highest memory use in the window, bytes
     * @param utilisationP95       95th percentile of the SM utilisation samples, percent of a card
     * @param samples              memory samples in the window
     * @param settledSamples       memory samples older than {@link #settledAfter()}: history exists that long
     * @param utilisationRecentMax highest utilisation in the last {@link RightSizing#IDLE_AFTER}: 0 means idle
     * @param workload             the workload (controller and container) the pod belonged to in the window
     * @param memoryMedian         the median memory use (of the hourly peaks where they are recorded), bytes
     * @param utilisationMedian    the median of the utilisation samples, percent of a card
     * @param hours                the hours of the window with at least one memory sample; -1 when not known
     */
    public record ShareHistory(String namespace, String pod, String container, String uuid, Figure memoryPeak,
                               Figure utilisationP95, long samples, long settledSamples,
                               Figure utilisationRecentMax, WorkloadGroup workload, Figure memoryMedian,
                               Figure utilisationMedian, long hours) {
        /** A pod's history with no owner known (the pod is its own workload), no medians and no hours. */
        public ShareHistory(String namespace, String pod, String container, String uuid, Figure memoryPeak,
                            Figure utilisationP95, long samples, long settledSamples, Figure utilisationRecentMax) {
            this(namespace, pod, container, uuid, memoryPeak, utilisationP95, samples, settledSamples,
                    utilisationRecentMax, WorkloadGroup.barePod("", namespace, pod, container),
                    Figure.missing(Absence.NOT_REPORTED), Figure.missing(Absence.NOT_REPORTED), -1);
        }

        public boolean matches(WorkloadShare share) {
            return share.workload().namespace().equals(namespace) && share.workload().pod().equals(pod)
                    && share.workload().container().equals(container)
                    // A history that names no card (an exporter that names none) is the container's only card's.
                    && (share.uuid().equals(uuid) || uuid.isEmpty());
        }
    }

    /**
     * This history's part of one cluster, as a read narrowed to that cluster answers it: its shares
     * and workloads of {@code cluster}, from the same queries (their provenance is the read's, over
     * every cluster). Empty where a share names no cluster (a vendor exporter's figures, read by
     * share alone, or series without the cluster label beside labelled ones): which cluster such a
     * share is of, only a narrowed read can tell.
     */
    public Optional<UsageHistory> inCluster(String cluster) {
        Objects.requireNonNull(cluster);
        if (shares.stream().anyMatch(share -> share.workload().cluster().isEmpty())) {
            return Optional.empty();
        }
        Map<WorkloadGroup, Long> hours = new java.util.HashMap<>();
        workloadHours.forEach((group, count) -> {
            if (group.cluster().equals(cluster)) {
                hours.put(group, count);
            }
        });
        return Optional.of(new UsageHistory(at, window, settledAfter, shares.stream()
                .filter(share -> share.workload().cluster().equals(cluster)).toList(), hours, provenance));
    }

    public Provenance provenance(Measure measure) {
        return provenance.getOrDefault(measure, new Provenance(measure.name().toLowerCase(java.util.Locale.ROOT), ""));
    }
}
