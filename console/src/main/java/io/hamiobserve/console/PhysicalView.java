package io.hamiobserve.console;

import io.hamiobserve.console.Format.Kind;
import io.hamiobserve.console.view.Facts;
import io.hamiobserve.console.view.Note;
import io.hamiobserve.console.view.Tiles;
import io.hamiobserve.domain.fleet.Card;
import io.hamiobserve.domain.fleet.ClockEvents;
import io.hamiobserve.domain.fleet.Figure;
import io.hamiobserve.domain.fleet.FleetState;
import io.hamiobserve.domain.fleet.Measure;
import io.hamiobserve.domain.fleet.Physical;
import io.hamiobserve.domain.fleet.Sourced;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The cards' physical side on the console's pages: DCGM's counters where its exporter is scraped,
 * the node role's NVML temperature and power where not, each figure with its source named. Without
 * any DCGM series a page says so once ({@link #NO_DCGM}); no figure then reads 0, and no tile fails.
 */
final class PhysicalView {
    static final String NO_DCGM = "No DCGM exporter scraped: temperature and power are the node role's own (NVML); "
            + "clocks, throttling, Xid and ECC errors appear once Prometheus scrapes NVIDIA's dcgm-exporter.";

    private PhysicalView() {
    }

    /** The page's one note when no card has DCGM's counters. */
    static Optional<Note> noDcgm(FleetState state) {
        return state.dcgmScraped() ? Optional.empty() : Optional.of(new Note("info", NO_DCGM));
    }

    /** "71 °C (DCGM exporter)"; the reason when missing. */
    static String shown(Sourced sourced, Kind kind) {
        return sourced.figure() instanceof Figure.Missing missing ? "no data — " + missing.why().explanation()
                : kind.format(sourced.figure().orElseThrow()) + " (" + sourced.source().words() + ")";
    }

    /** The temperature and power facts of a card: one figure each, its source named. */
    static List<Facts.Fact> sourcedFacts(Card card) {
        return List.of(sourcedFact("Temperature", card.temperatureShown(), Kind.CELSIUS),
                sourcedFact("Power", card.powerShown(), Kind.WATTS));
    }

    private static Facts.Fact sourcedFact(String label, Sourced sourced, Kind kind) {
        return new Facts.Fact(label, shown(sourced, kind), null, null, sourced.figure().isKnown() ? "" : "missing");
    }

    /** A card's DCGM counters, when its exporter reports the card. */
    static Optional<Facts> cardFacts(Card card) {
        return card.physical().map(physical -> new Facts("Physical counters (DCGM exporter"
                + (physical.hostname().isEmpty() ? "" : " on " + physical.hostname()) + ")", List.of(
                fact("GPU temperature", physical.gpuTemperature(), Kind.CELSIUS, ""),
                fact("Memory temperature", physical.memoryTemperature(), Kind.CELSIUS, ""),
                fact("Power", physical.power(), Kind.WATTS, ""),
                fact("Energy, last " + Format.duration(Physical.ENERGY_WINDOW),
                        physical.energy().map(joules -> joules / 3600), Kind.DECIMAL, " Wh"),
                fact("SM clock", physical.smClock(), Kind.COUNT, " MHz"),
                fact("Utilisation", physical.utilisation(), Kind.PERCENT, physical.utilisationField().isEmpty() ? ""
                        : " (" + physical.utilisationField() + ")"),
                fact("Framebuffer used", physical.framebufferUsed(), Kind.BYTES, ""),
                text("Clock events", physical.clockEventWords().orElse("no data — DCGM does not report them for "
                        + "this card"), physical.throttling() ? "bad" : physical.clockEvents().isKnown() ? "" : "missing"),
                text("Xid error", !physical.xid().isKnown() ? "no data — DCGM does not report it for this card"
                        : physical.xidError() ? "Xid " + (long) physical.xid().orElseThrow() + " (the last reported)"
                        : "none", physical.xidError() ? "bad" : physical.xid().isKnown() ? "" : "missing"),
                fact("ECC uncorrectable", physical.eccUncorrectable(), Kind.COUNT, " since the driver loaded"),
                disagreement(card, physical))));
    }

    /** HAMi's host memory used beside DCGM's framebuffer used: the two sides of one figure. */
    private static Facts.Fact disagreement(Card card, Physical physical) {
        String both = Format.figure(card.memoryUsed(), Kind.BYTES) + " (hami-observe node) vs "
                + Format.figure(physical.framebufferUsed(), Kind.BYTES) + " (DCGM)";
        if (physical.sourcesDisagree()) {
            return new Facts.Fact("Memory used, two sources", both + ": differ by at least "
                    + Kind.BYTES.format(physical.sustainedDisagreement().orElseThrow()) + " for "
                    + Format.duration(Physical.DISAGREEMENT_WINDOW), null, null, "bad");
        }
        return new Facts.Fact("Memory used, two sources", both, null, "they disagree when they differ by more than "
                + Kind.BYTES.format(Physical.DISAGREEMENT_TOLERANCE_BYTES) + " for "
                + Format.duration(Physical.DISAGREEMENT_WINDOW), "");
    }

    /** The warning a card page shows when its two memory sources disagree. */
    static Optional<Note> disagreementNote(Card card) {
        return card.physical().filter(Physical::sourcesDisagree).map(physical -> new Note("warning",
                "HAMi's host memory used and DCGM's framebuffer used for this card have differed by more than "
                        + Kind.BYTES.format(Physical.DISAGREEMENT_TOLERANCE_BYTES) + " for "
                        + Format.duration(Physical.DISAGREEMENT_WINDOW) + ": one monitor is broken or stale, or a "
                        + "process outside both accounts holds memory."));
    }

    /** Cards with something to look at: throttled by heat or power, an Xid, ECC errors, sources that disagree. */
    static List<Card> attention(List<Card> cards) {
        return cards.stream().filter(card -> card.physical().filter(PhysicalView::needsAttention).isPresent())
                .toList();
    }

    private static boolean needsAttention(Physical physical) {
        return physical.throttling() || physical.xidError() || physical.sourcesDisagree()
                || (physical.eccUncorrectable().isKnown() && physical.eccUncorrectable().orElseThrow() > 0);
    }

    /** The overview's physical tiles: the hottest card and the power drawn, and, with DCGM, the cards needing attention. */
    static List<Tiles.Tile> overviewTiles(FleetState state, Map<Measure, String> queries) {
        List<Tiles.Tile> tiles = new ArrayList<>();
        Optional<Card> hottest = state.cards().stream().filter(card -> card.temperatureShown().figure().isKnown())
                .max(Comparator.comparingDouble(card -> card.temperatureShown().figure().orElseThrow()));
        tiles.add(hottest.map(card -> PageKit.tile("Hottest card", card.temperatureShown().figure(), Kind.CELSIUS,
                        "card " + card.index() + " of " + card.node() + " (" + card.temperatureShown().source().words()
                                + ")", card.temperatureShown().figure().orElseThrow() >= Physical.HOT_CELSIUS ? "bad"
                                : "good", anchor(state, queries, Measure.DCGM_GPU_TEMPERATURE, Measure.CARD_TEMPERATURE)))
                .orElse(PageKit.tile("Hottest card", Figure.missing(io.hamiobserve.domain.fleet.Absence.NOT_REPORTED),
                        Kind.CELSIUS, "", "", queries.get(Measure.CARD_TEMPERATURE))));
        List<Figure> powers = state.cards().stream().map(card -> card.powerShown().figure()).toList();
        Figure.Total power = Figure.Total.of(powers);
        tiles.add(PageKit.tile("Power drawn", power.figure(), Kind.WATTS, power.known() + (power.known() == 1 ? " card" : " cards")
                        + (power.missing() > 0 ? ", " + power.missing() + " without a reading" : ""), "",
                anchor(state, queries, Measure.DCGM_POWER, Measure.CARD_POWER)));
        if (state.dcgmScraped()) {
            int attention = attention(state.cards()).size();
            tiles.add(new Tiles.Tile("Hardware events", Integer.toString(attention), "cards throttled, with an Xid or "
                    + "ECC error, or whose memory sources disagree", attention > 0 ? "bad" : "good", null,
                    queries.get(Measure.DCGM_XID)));
        }
        return tiles;
    }

    private static String anchor(FleetState state, Map<Measure, String> queries, Measure dcgm, Measure nvml) {
        return state.dcgmScraped() ? queries.get(dcgm) : queries.get(nvml);
    }

    /** The cards needing attention, as a table. */
    static Table<Card> attentionTable(Links links) {
        return new Table<>("hardware", "Cards needing attention", List.of(
                Table.<Card>column("node", "Node", card -> Value.text(card.node())).linked(card -> links.node(card.node())),
                Table.<Card>column("index", "#", card -> Value.of(card.index(), Kind.COUNT)),
                Table.<Card>column("uuid", "Card", card -> Value.text(card.uuid())).linked(card -> links.card(card.uuid())),
                Table.<Card>column("temperature", "Temp", card -> Value.of(card.temperatureShown().figure(),
                        Kind.CELSIUS)).from(Measure.DCGM_GPU_TEMPERATURE),
                Table.<Card>column("clock_events", "Clock events", card -> Value.text(card.physical()
                        .flatMap(Physical::clockEventWords).orElse(""))).from(Measure.DCGM_CLOCK_EVENTS),
                Table.<Card>column("xid", "Xid", card -> Value.text(xid(card))).from(Measure.DCGM_XID),
                Table.<Card>column("ecc", "ECC uncorrectable", card -> Value.of(card.physical()
                        .map(Physical::eccUncorrectable).orElse(Figure.missing(
                                io.hamiobserve.domain.fleet.Absence.NOT_REPORTED)), Kind.COUNT)).from(Measure.DCGM_ECC),
                Table.<Card>column("disagree", "Memory sources", card -> Value.text(card.physical()
                        .filter(Physical::sourcesDisagree).isPresent() ? "disagree" : "agree"))
                        .from(Measure.DCGM_DISAGREEMENT)), "node", false);
    }

    /** "79", or "" for none. */
    static String xid(Card card) {
        return card.physical().filter(Physical::xidError).map(p -> Long.toString((long) p.xid().orElseThrow()))
                .orElse("");
    }

    /** Throttle reasons worth a column: those by heat or power, in words; "" otherwise. */
    static String throttle(Card card) {
        return card.physical().filter(Physical::throttling).map(physical -> String.join(", ",
                ClockEvents.decode((long) physical.clockEvents().orElseThrow()).stream()
                        .filter(reason -> reason.kind() != ClockEvents.Kind.BENIGN).map(ClockEvents::words).toList()))
                .orElse("");
    }

    private static Facts.Fact fact(String label, Figure figure, Kind kind, String suffix) {
        if (figure instanceof Figure.Missing missing) {
            return new Facts.Fact(label, "no data — " + missing.why().explanation(), null, null, "missing");
        }
        return new Facts.Fact(label, kind.format(figure.orElseThrow()) + suffix, null, null, "");
    }

    private static Facts.Fact text(String label, String value, String css) {
        return new Facts.Fact(label, value, null, null, css);
    }
}
