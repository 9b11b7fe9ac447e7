package io.hamiobserve.console;

import io.hamiobserve.domain.fleet.Absence;
import io.hamiobserve.domain.fleet.CardHours;
import io.hamiobserve.domain.fleet.Figure;
import io.hamiobserve.domain.fleet.Measure;
import io.hamiobserve.domain.fleet.Prices;
import io.hamiobserve.domain.fleet.Showback;
import io.hamiobserve.ports.FleetHistory;
import io.hamiobserve.ports.SourceUnavailableException;

import java.io.PrintStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;

/**
 * Showback as a table: one line per group (namespace, workload, node, model, ...) and the fleet's
 * own lines after them, so that the {@code fleet_card_hours} column sums to the card-hours of every
 * card seen: a group's line counts the hours it used, then <b>allocated but idle</b> (what groups
 * blocked and did not use), <b>unallocated</b> and <b>unhealthy / unregistered</b>, then the total.
 * Beside it, each group's allocated, used and idle card-hours, efficiency, memory GiB-hours and
 * core-hours, and with prices the cost of its allocation and of its idle part. The command line
 * prints it ({@code hami-observe showback}); the console's Showback page draws and exports it.
 */
public final class ShowbackReport {
    private ShowbackReport() {
    }

    /** The name of the line that sums the others. */
    public static final String TOTAL = "total: every card seen";

    /** One line: a group's, or one of the fleet's. */
    record Line(String name, long fleetTicks, Showback.Row group, OptionalDouble cost) {
    }

    /** The report's lines, groups first (largest allocation first), then the fleet's. */
    static List<Line> lines(Showback report) {
        List<Line> lines = new ArrayList<>();
        report.rows().forEach(row -> lines.add(new Line(row.key(), row.usedTicks(), row, row.cost())));
        Showback.Fleet fleet = report.fleet();
        lines.add(new Line("allocated but idle", fleet.allocatedIdle(), null, fleet.idleCost()));
        lines.add(new Line("unallocated", fleet.unallocated(), null, fleet.unallocatedCost()));
        lines.add(new Line("unhealthy / unregistered", fleet.unavailable(), null, fleet.unavailableCost()));
        lines.add(new Line(TOTAL, fleet.seen(), null, fleet.seenCost()));
        return lines;
    }

    /** The columns; the cost columns only with prices. */
    static Table<Line> table(Showback report) {
        List<Table.Column<Line>> columns = new ArrayList<>(List.of(
                Table.<Line>column("row", report.by().label(), line -> Value.text(line.name())),
                Table.<Line>column("fleet_card_hours", "Card-hours of the fleet",
                                line -> Value.of(Showback.Fleet.hours(line.fleetTicks()), Format.Kind.HOURS))
                        .explained("a group's used card-hours, then the fleet's lines: the column sums to the total"),
                Table.<Line>column("allocated_card_hours", "Allocated card-hours",
                                line -> group(line, row -> Figure.of(row.allocatedCardHours()), Format.Kind.HOURS))
                        .from(Measure.SHARE_CARD_SECONDS_ALLOCATED)
                        .explained("a share blocks the larger of its memory and its core fraction of its card"),
                Table.<Line>column("used_card_hours", "Used card-hours",
                        line -> group(line, row -> Figure.of(row.usedCardHours()), Format.Kind.HOURS))
                        .from(Measure.SHARE_CARD_SECONDS_USED),
                Table.<Line>column("idle_card_hours", "Idle card-hours",
                        line -> group(line, row -> Figure.of(row.idleCardHours()), Format.Kind.HOURS)),
                Table.<Line>column("efficiency", "Used ÷ allocated", line -> group(line,
                        row -> row.efficiency().isPresent() ? Figure.of(row.efficiency().getAsDouble())
                                : Figure.missing(Absence.NO_WHOLE), Format.Kind.FRACTION)),
                Table.<Line>column("memory_gib_hours", "Memory GiB-hours",
                        line -> group(line, row -> Figure.of(row.memoryGibHours()), Format.Kind.HOURS))
                        .from(Measure.SHARE_MEMORY_SECONDS),
                Table.<Line>column("core_hours", "Core-hours (cards' worth)",
                        line -> group(line, row -> Figure.of(row.coreHours()), Format.Kind.HOURS))
                        .from(Measure.SHARE_CORE_SECONDS)));
        if (!report.prices().isEmpty()) {
            columns.add(Table.<Line>column("cost", "Cost", line -> Value.of(cost(line.cost()), Format.Kind.DECIMAL))
                    .explained("card-hours × the price of the card's model"));
            columns.add(Table.<Line>column("idle_cost", "Idle cost", line -> line.group() == null
                    ? Value.of(Figure.missing(Absence.NO_SHARE), Format.Kind.DECIMAL)
                    : Value.of(cost(line.group().idleCost()), Format.Kind.DECIMAL)));
        }
        // Sorted by the order the lines are made in: a fleet line has no allocation, and a missing
        // figure sorts after every known one, in the order it came (a stable sort).
        return new Table<>("showback", "Showback", columns, "allocated_card_hours", true);
    }

    private static Value group(Line line, java.util.function.Function<Showback.Row, Figure> figure, Format.Kind kind) {
        return Value.of(line.group() == null ? Figure.missing(Absence.NO_SHARE) : figure.apply(line.group()), kind);
    }

    private static Figure cost(OptionalDouble cost) {
        return cost.isPresent() ? Figure.of(cost.getAsDouble()) : Figure.missing(Absence.NO_PRICE);
    }

    /** How a report is printed: for a person, or for a program or a spreadsheet. */
    public enum Output { TABLE, JSON, CSV }

    /**
     * Writes the report of {@code history} from {@code from} to {@code to}, by {@code by}.
     *
     * @throws SourceUnavailableException when the history cannot be read or holds no card
     */
    public static void write(FleetHistory history, Instant from, Instant to, Showback.Grouping by, Prices prices,
                             Output format, PrintStream out) throws SourceUnavailableException {
        CardHours hours = history.cardHours(from, to);
        if (hours.cards().isEmpty() && hours.shares().isEmpty()) {
            throw new SourceUnavailableException(history.description() + " holds no card between " + from + " and "
                    + to + ": is it the Prometheus that scrapes the hami-observe (or HAMi) endpoints?");
        }
        Showback report = hours.report(by, prices);
        Table<Line> table = table(report);
        List<Line> lines = lines(report);
        switch (format) {
            case JSON -> out.println(table.json(lines, Map.of()));
            case CSV -> out.print(table.csv(lines, Map.of(), Table::printable));
            case TABLE -> {
                out.printf("Showback by %s from %s to %s, %s:%n%n", by.label(), hours.from(), hours.to(),
                        history.description());
                out.print(table.text(lines, Map.of()));
                if (report.fleet().overbooked() > 0) {
                    out.printf("%nShares blocked %s card-hours beyond their cards (sizes add up to more than a card);"
                            + " scaled to their cards.%n", Format.number(Showback.Fleet.hours(report.fleet().overbooked()), 1));
                }
                if (prices.isEmpty()) {
                    out.printf("%nNo prices: hours only (--prices FILE, --price MODEL=PRICE).%n");
                }
            }
        }
        out.flush();
    }
}
