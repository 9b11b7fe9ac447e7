package io.hamiobserve.console;

import io.hamiobserve.console.view.Tiles;
import io.hamiobserve.domain.fleet.CardHours;
import io.hamiobserve.domain.fleet.Figure;
import io.hamiobserve.domain.fleet.Funnel;
import io.hamiobserve.domain.fleet.Measure;
import io.hamiobserve.domain.fleet.Prices;
import io.hamiobserve.domain.fleet.Showback;

import java.util.List;
import java.util.Map;

/**
 * The Showback page's content: the report by the group a request names (namespace unless it names
 * another), its lines and table ({@link ShowbackReport}, as the command line prints them), and the
 * fleet's card-hours as tiles.
 */
record ShowbackView(Showback report, Table<ShowbackReport.Line> table, List<ShowbackReport.Line> lines) {
    /** The groups the page offers. */
    static final List<Showback.Grouping> GROUPS = List.of(Showback.Grouping.NAMESPACE, Showback.Grouping.WORKLOAD,
            Showback.Grouping.NODE, Showback.Grouping.MODEL, Showback.Grouping.CLUSTER);

    static final String RULE = "A share blocks the larger of its memory fraction and its core fraction of its card "
            + "(25 % of the memory and 50 % of the cores: half a card), since HAMi places a share only where both "
            + "fit. Its use is its utilisation of the card, at most its size. The first column sums to every card "
            + "seen: each row's used card-hours, then what was allocated but idle, unallocated, and unhealthy or "
            + "unregistered (seen by the node but not registered, or registered unhealthy).";

    static ShowbackView of(CardHours hours, String by, Prices prices) {
        Showback.Grouping grouping = GROUPS.stream().filter(group -> group.label().equals(by)).findFirst()
                .orElse(Showback.Grouping.NAMESPACE);
        Showback report = hours.report(grouping, prices);
        return new ShowbackView(report, ShowbackReport.table(report), ShowbackReport.lines(report));
    }

    Showback.Grouping by() {
        return report.by();
    }

    Tiles tiles(Map<Measure, String> anchors) {
        Showback.Fleet fleet = report.fleet();
        String allocated = anchors.get(Measure.SHARE_CARD_SECONDS_ALLOCATED);
        return new Tiles(List.of(
                PageKit.tile("Card-hours seen", hours(fleet.seen()), Format.Kind.HOURS, "every card any source saw",
                        "", anchors.get(Measure.CARD_SECONDS_SEEN)),
                PageKit.tile("Used", hours(fleet.used()), Format.Kind.HOURS, "by the shares, at most their size",
                        "good", anchors.get(Measure.SHARE_CARD_SECONDS_USED)),
                PageKit.tile("Allocated but idle", hours(fleet.allocatedIdle()), Format.Kind.HOURS,
                        "blocked by shares, not used", "warn", allocated),
                PageKit.tile("Unallocated", hours(fleet.unallocated()), Format.Kind.HOURS, "healthy, held by no share",
                        "", allocated),
                PageKit.tile("Unhealthy / unregistered", hours(fleet.unavailable()), Format.Kind.HOURS,
                        "seen but not allocatable", fleet.unavailable() > 0 ? "bad" : "",
                        anchors.get(Measure.CARD_SECONDS_UNAVAILABLE))));
    }

    /**
     * The fleet funnel over a window's card-hours, by the group a request names ({@code funnel}:
     * namespace unless model or cluster), and where it loses the most: the one funnel component the
     * Showback page and the overview both draw ({@link FleetPage#funnel}).
     */
    record FunnelSection(Showback.Grouping by, List<Funnel> funnel, List<Funnel.Loss> losses, Table<Funnel> table,
                         Table<Funnel.Loss> lossTable) {
        static final List<Showback.Grouping> GROUPS = List.of(Showback.Grouping.NAMESPACE, Showback.Grouping.MODEL,
                Showback.Grouping.CLUSTER);

        static FunnelSection of(CardHours hours, String by, Links links) {
            Showback.Grouping grouping = GROUPS.stream().filter(group -> group.label().equals(by)).findFirst()
                    .orElse(Showback.Grouping.NAMESPACE);
            return new FunnelSection(grouping, Funnel.of(hours, grouping), Funnel.losses(hours, 10),
                    ShowbackView.funnelTable("Funnel by " + grouping.label() + ", cards' worth"),
                    ShowbackView.lossTable(links));
        }

        /** Its tables for export, as {@code funnel} and {@code losses}. */
        Map<String, FleetPage.Rows<?>> exports() {
            return Map.of("funnel", FleetPage.rows(table, funnel), "losses", FleetPage.rows(lossTable, losses));
        }
    }

    /** The funnel's table, in cards' worth: the fleet first, then each group of {@code by} (cluster, model or namespace). */
    static Table<Funnel> funnelTable(String title) {
        return new Table<>("funnel", title, List.of(
                Table.<Funnel>column("group", "Group", funnel -> Value.text(funnel.group())),
                Table.<Funnel>column("total", "Total (registered, healthy)", funnel -> Value.of(funnel.total(), Format.Kind.DECIMAL))
                        .from(Measure.CARD_SECONDS_SEEN),
                Table.<Funnel>column("allocated", "Allocated", funnel -> Value.of(funnel.allocated(), Format.Kind.DECIMAL))
                        .from(Measure.SHARE_CARD_SECONDS_ALLOCATED),
                Table.<Funnel>column("active", "Active", funnel -> Value.of(funnel.active(), Format.Kind.DECIMAL))
                        .from(Measure.SHARE_ACTIVE)
                        .explained("allocation of shares with some use in the last " + Funnel.ACTIVE.toMinutes() + " minutes"),
                Table.<Funnel>column("effective", "Effective", funnel -> Value.of(funnel.effective(), Format.Kind.DECIMAL))
                        .from(Measure.SHARE_CARD_SECONDS_USED)
                        .explained("allocation of shares that used ≥ " + Math.round(Funnel.EFFECTIVE * 100)
                                + " % of it over the window")), "allocated", true);
    }

    /** Where the funnel loses the most: each workload linked to the workloads page filtered to it. */
    static Table<Funnel.Loss> lossTable(Links links) {
        return new Table<>("losses", "Where the funnel loses the most", List.of(
                Table.<Funnel.Loss>column("stage", "Stage", loss -> Value.text(loss.stage())),
                Table.<Funnel.Loss>column("namespace", "Namespace", loss -> Value.text(loss.namespace())),
                Table.<Funnel.Loss>column("workload", "Workload", loss -> Value.text(loss.workload()))
                        .linked(loss -> links.to("/workloads", Map.of("workloads.q",
                                loss.workload().substring(loss.workload().indexOf('/') + 1)))),
                Table.<Funnel.Loss>column("cards", "Cards' worth lost", loss -> Value.of(loss.cards(), Format.Kind.DECIMAL))),
                "cards", true);
    }

    private static Figure hours(long ticks) {
        return Figure.of(Showback.Fleet.hours(ticks));
    }
}
