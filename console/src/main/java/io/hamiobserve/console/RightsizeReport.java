package io.hamiobserve.console;

import io.hamiobserve.domain.fleet.FleetScope;
import io.hamiobserve.domain.fleet.FleetState;
import io.hamiobserve.domain.fleet.FleetTotals;
import io.hamiobserve.domain.fleet.Recommendation;
import io.hamiobserve.domain.fleet.RightSizing;
import io.hamiobserve.domain.fleet.UsageHistory;
import io.hamiobserve.ports.FleetHistory;
import io.hamiobserve.ports.SourceUnavailableException;

import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * The right-sizing recommendations for the command line ({@code hami-observe rightsize}): the
 * console's right-sizing table, as a text table with a summary, or as CSV or JSON for scripts.
 */
public final class RightsizeReport {
    private RightsizeReport() {
    }

    /** Output formats. */
    public enum Format { TABLE, JSON, CSV }

    /**
     * Writes the recommendations for every workload over {@code window} ending at {@code at}.
     *
     * @throws SourceUnavailableException when the history cannot be read, or holds none of the
     *                                    exporters' series (the message says why)
     */
    public static void write(FleetHistory history, Instant at, Duration window, Format format, PrintStream out)
            throws SourceUnavailableException {
        FleetState state = FleetState.of(history.readings(at, FleetScope.EVERYTHING));
        if (state.cards().isEmpty() && state.workloads().isEmpty() && !state.health().reported()) {
            // An empty answer is not "nothing to right-size": this source holds none of the exporters' series.
            throw new SourceUnavailableException(history.description() + " holds none of the exporters' series (no "
                    + "card, no container, no exporter reporting its sources): is it the Prometheus that scrapes "
                    + "the hami-observe (or HAMi) endpoints?");
        }
        UsageHistory usage = history.usage(at, window, RightSizing.MIN_HISTORY, FleetScope.EVERYTHING);
        List<Recommendation> recommendations = RightSizing.recommendAll(state.workloads(), usage);
        Table<Recommendation> table = Columns.recommendations(new Links(""));
        switch (format) {
            case JSON -> out.println(table.json(recommendations, Map.of()));
            // Printed where a terminal may show it: no control character of a label value gets through.
            case CSV -> out.print(table.csv(recommendations, Map.of(), Table::printable));
            case TABLE -> {
                RightSizing.Savings savings = RightSizing.Savings.of(recommendations,
                        FleetTotals.of(state).meanCardMemory());
                out.printf("Right-sizing over %s from %s (%d workloads):%n%n", io.hamiobserve.console.Format
                        .duration(window), history.description(), recommendations.size());
                out.print(table.text(recommendations, Map.of()));
                out.printf("%nApplying every recommendation frees %s of GPU memory%s and %s cards' worth of "
                                + "compute.%n", io.hamiobserve.console.Format.bytes(savings.memoryBytes()),
                        savings.memoryCards().isKnown() ? " (≈ " + io.hamiobserve.console.Format.number(
                                savings.memoryCards().orElseThrow(), 1) + " cards)" : "",
                        io.hamiobserve.console.Format.number(savings.cores() / 100, 1));
            }
        }
        out.flush();
    }
}
