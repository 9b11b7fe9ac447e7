package io.hamiobserve.console;

import io.hamiobserve.domain.fleet.Card;
import io.hamiobserve.domain.fleet.Measure;
import io.hamiobserve.domain.fleet.UsageOrigin;
import io.hamiobserve.domain.fleet.WorkloadShare;

/**
 * Where a figure of use comes from, on the pages, next to the figure: a device vendor's own
 * exporter (named as its mapping names it) and what its figure means where that is not what the
 * column says (a container figure that is the whole card's, a percent of a virtual share); or the
 * driver's per-process figures of a whole card without HAMi-Core. Figures from HAMi-Core's
 * accounting or HAMi's usage endpoint say nothing more.
 */
final class UsageOriginView {
    private UsageOriginView() {
    }

    /** The label of a card's memory used: who measured it. */
    static String cardUsedLabel(Card card) {
        return card.origin().map(origin -> "Used (" + origin.source() + ")").orElse("Used (driver)");
    }

    /** What the card's memory figure means, after it, where that differs. */
    static String cardMemoryNote(Card card) {
        return card.origin().map(UsageOrigin::memoryMeaning).filter(meaning -> !meaning.isEmpty())
                .map(meaning -> " — " + meaning).orElse("");
    }

    /** What the card's utilisation figure means, after it: its source where not HAMi's, and a different meaning. */
    static String cardComputeNote(Card card) {
        return card.origin().map(origin -> " (" + origin.source() + ")"
                + (origin.utilisationMeaning().isEmpty() ? "" : " — " + origin.utilisationMeaning())).orElse("");
    }

    /** The shares tables' column beside the use: where it comes from and what it means, empty for HAMi-Core's. */
    static Table.Column<WorkloadShare> column() {
        return Table.<WorkloadShare>column("use_from", "Use from",
                        share -> Value.text(share.origin().map(UsageOrigin::describe).orElse("")))
                .from(Measure.EXPORTER_CONTAINER_MEMORY_USED)
                .explained("empty: HAMi-Core's accounting; else the exporter or the driver that measured the use, "
                        + "and what its figure means where it is not the container's own");
    }

    /**
     * A share's memory outside HAMi-Core, in words: a whole card without HAMi-Core is said to be
     * one, its use measured per process by the driver, not as a container escaping its share.
     */
    static String outside(WorkloadShare share) {
        String bytes = Format.bytes(share.unmanagedMemory());
        return share.origin().filter(UsageOrigin.DRIVER_PROCESSES::equals).isPresent()
                ? share.workload() + " " + bytes + " (" + UsageOrigin.DRIVER_PROCESSES.source() + ")"
                : share.workload() + " " + bytes;
    }
}
