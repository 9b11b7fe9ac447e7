package io.hamiobserve.console;

import io.hamiobserve.domain.fleet.FleetScope;
import io.hamiobserve.domain.fleet.FleetState;
import io.hamiobserve.domain.fleet.FleetTotals;
import io.hamiobserve.domain.fleet.Recommendation;
import io.hamiobserve.domain.fleet.RightSizing;
import io.hamiobserve.domain.fleet.UsageHistory;
import io.hamiobserve.domain.fleet.WorkloadRecommendation;
import io.hamiobserve.ports.FleetHistory;
import io.hamiobserve.ports.SourceUnavailableException;
import org.snakeyaml.engine.v2.api.Dump;
import org.snakeyaml.engine.v2.api.DumpSettings;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.common.FlowStyle;

import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The right-sizing recommendations for the command line ({@code hami-observe rightsize}): per
 * workload (a controller's container across every pod it had), or per pod; as a text table with a
 * summary, as CSV, JSON or YAML for scripts, as an HTML page, or as patches to apply.
 */
public final class RightsizeReport {
    private RightsizeReport() {
    }

    /** Output formats. */
    public enum Format { TABLE, JSON, CSV, YAML, HTML, PATCH }

    /**
     * What to print.
     *
     * @param namespace only this namespace, when given
     * @param ownerKind only workloads of this controller kind ({@code Deployment}, {@code Pod}, ...), any case
     * @param byPod     one row per pod and container, as before workloads were grouped (bare pods, debugging)
     */
    public record Options(Format format, Optional<String> namespace, Optional<String> ownerKind, boolean byPod) {
        public static Options of(Format format) {
            return new Options(format, Optional.empty(), Optional.empty(), false);
        }

        boolean keeps(WorkloadRecommendation r) {
            return namespace.map(r.workload().namespace()::equals).orElse(true)
                    && ownerKind.map(r.workload().ownerKind()::equalsIgnoreCase).orElse(true);
        }
    }

    /** As {@link #write(FleetHistory, Instant, Duration, Options, PrintStream)}, every workload. */
    public static void write(FleetHistory history, Instant at, Duration window, Format format, PrintStream out)
            throws SourceUnavailableException {
        write(history, at, window, Options.of(format), out);
    }

    /**
     * Writes the recommendations over {@code window} ending at {@code at}.
     *
     * @throws SourceUnavailableException when the history cannot be read, or holds none of the
     *                                    exporters' series (the message says why)
     */
    public static void write(FleetHistory history, Instant at, Duration window, Options options, PrintStream out)
            throws SourceUnavailableException {
        FleetState state = FleetState.of(history.readings(at, FleetScope.EVERYTHING));
        if (state.cards().isEmpty() && state.workloads().isEmpty() && !state.health().reported()) {
            // An empty answer is not "nothing to right-size": this source holds none of the exporters' series.
            throw new SourceUnavailableException(history.description() + " holds none of the exporters' series (no "
                    + "card, no container, no exporter reporting its sources): is it the Prometheus that scrapes "
                    + "the hami-observe (or HAMi) endpoints?");
        }
        UsageHistory usage = history.usage(at, window, RightSizing.MIN_HISTORY, FleetScope.EVERYTHING);
        List<WorkloadRecommendation> workloads = RightSizing.byWorkload(state.workloads(), usage).stream()
                .filter(options::keeps).toList();
        String title = "Right-sizing over " + io.hamiobserve.console.Format.duration(window) + " from "
                + history.description();
        if (options.byPod()) {
            // The pod-level view: the pods of the workloads kept.
            List<Recommendation> pods = RightSizing.recommendAll(state.workloads(), usage).stream()
                    .filter(r -> workloads.stream().anyMatch(w -> w.workload().namespace().equals(
                            r.workload().namespace()) && w.pods().contains(r.workload().pod())))
                    .toList();
            print(Columns.recommendations(new Links("")), pods, options.format(), title + " per pod", out);
            if (options.format() == Format.TABLE) {
                RightSizing.Savings savings = RightSizing.Savings.of(pods, FleetTotals.of(state).meanCardMemory());
                savings(savings.memoryBytes(), savings.cores(), savings.memoryCards(), out);
            }
        } else if (options.format() == Format.PATCH) {
            out.print("# " + Table.printable(title) + "\n# per workload: a strategic-merge patch of its containers' "
                    + "nvidia.com/gpumem and nvidia.com/gpucores limits, and the kubectl line that applies it\n\n");
            WorkloadPatch.of(workloads).forEach(patch -> out.print(patch.script()));
        } else {
            print(WorkloadColumns.recommendations(new Links("")), workloads, options.format(), title
                    + " per workload", out);
            if (options.format() == Format.TABLE) {
                double memory = workloads.stream().mapToDouble(WorkloadRecommendation::memoryFreedBytes).sum();
                savings(memory, workloads.stream().mapToDouble(WorkloadRecommendation::coresFreed).sum(),
                        io.hamiobserve.domain.fleet.Figure.of(memory).fractionOf(FleetTotals.of(state).meanCardMemory()),
                        out);
            }
        }
        out.flush();
    }

    private static <R> void print(Table<R> table, List<R> rows, Format format, String title, PrintStream out) {
        switch (format) {
            case JSON -> out.println(table.json(rows, Map.of()));
            // Printed where a terminal may show it: no control character of a label value gets through.
            case CSV -> out.print(table.csv(rows, Map.of(), Table::printable));
            // The JSON export's rows, as YAML: one shape for scripts whichever they read.
            case YAML -> out.print(new Dump(DumpSettings.builder().setDefaultFlowStyle(FlowStyle.BLOCK).build())
                    .dumpToString(new Load(LoadSettings.builder().build()).loadFromString(table.json(rows, Map.of()))));
            case HTML -> out.print(ReportPage.render(title, table, rows));
            case TABLE, PATCH -> {
                out.printf("%s (%d rows):%n%n", Table.printable(title), rows.size());
                out.print(table.text(rows, Map.of()));
            }
        }
    }

    private static void savings(double memoryBytes, double cores, io.hamiobserve.domain.fleet.Figure memoryCards,
                                PrintStream out) {
        out.printf("%nApplying every recommendation frees %s of GPU memory%s and %s cards' worth of "
                        + "compute.%n", io.hamiobserve.console.Format.bytes(memoryBytes),
                memoryCards.isKnown() ? " (≈ " + io.hamiobserve.console.Format.number(
                        memoryCards.orElseThrow(), 1) + " cards)" : "",
                io.hamiobserve.console.Format.number(cores / 100, 1));
    }
}
