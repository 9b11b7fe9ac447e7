package io.hamiobserve.console;

import io.hamiobserve.console.view.BarView;
import io.hamiobserve.domain.fleet.Card;
import io.hamiobserve.domain.fleet.WorkloadShare;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A card's memory as one stacked bar: each container's allocation, its use drawn inside it; the
 * memory in use that no container's HAMi-Core accounting covers (driver reserve, processes outside
 * HAMi-Core) as its own segment; what is left free. The scale is the larger of the card's memory
 * and everything on it, so an overcommitted card shows its overcommit instead of clipping it.
 */
final class Bars {
    private static final double WIDTH = 1000;

    private Bars() {
    }

    static BarView card(Card card, Links links) {
        double total = card.memoryTotal().isKnown() ? card.memoryTotal().orElseThrow() : 0;
        double allocated = card.shares().stream().filter(share -> share.memoryAllocated().isKnown())
                .mapToDouble(share -> share.memoryAllocated().orElseThrow()).sum();
        double outside = card.memoryOutsideHamiCore().isKnown() ? card.memoryOutsideHamiCore().orElseThrow() : 0;
        double scale = Math.max(1, Math.max(total, allocated + outside));
        List<BarView.Segment> segments = new ArrayList<>();
        double x = 0;
        for (WorkloadShare share : card.shares()) {
            double size = share.memoryAllocated().isKnown() ? share.memoryAllocated().orElseThrow() : 0;
            String who = share.workload().toString();
            String href = links.workload(share.workload().namespace(), share.workload().pod(),
                    share.workload().container());
            String used = share.memoryUsed().isKnown() ? Format.bytes(share.memoryUsed().orElseThrow()) + " used"
                    : "use unknown: " + ((io.hamiobserve.domain.fleet.Figure.Missing) share.memoryUsed()).why()
                    .explanation();
            String allocation = share.memoryAllocated() instanceof io.hamiobserve.domain.fleet.Figure.Missing missing
                    ? "allocation unknown (" + missing.why().explanation() + ")" : Format.bytes(size) + " allocated";
            segments.add(segment(x, size, scale, "seg-alloc", who + ": " + allocation + ", " + used, href));
            if (share.memoryUsed().isKnown()) {
                double use = share.memoryUsed().orElseThrow();
                segments.add(segment(x, Math.min(use, size), scale, "seg-used", who + ": " + used, href));
            }
            x += size;
        }
        if (outside > 0) {
            segments.add(segment(x, outside, scale, "seg-outside", Format.bytes(outside)
                    + " in use outside HAMi-Core's accounting (driver reserve, processes without HAMi-Core)", null));
            x += outside;
        }
        if (total > x) {
            segments.add(segment(x, total - x, scale, "seg-free", Format.bytes(total - x) + " free", null));
        }
        long unknown = card.shares().stream().filter(share -> !share.memoryAllocated().isKnown()).count();
        int holders = card.shares().size();
        // A missing allocation is "no data", never 0 B: the facts above say the same.
        String allocation = holders > 0 && unknown == holders
                ? "allocation of " + holders + " container" + (holders == 1 ? "" : "s") + ": no data"
                : Format.bytes(allocated) + " allocated to " + holders + " container" + (holders == 1 ? "" : "s")
                + (unknown > 0 ? " (" + unknown + " without an allocation figure: no data)" : "");
        String caption = "Memory " + (total > 0 ? Format.bytes(total) : "(total unknown)") + ": " + allocation
                + (card.memoryUsed().isKnown() ? ", " + Format.bytes(card.memoryUsed().orElseThrow())
                + " in use on the card" : ", card use unknown")
                + (allocated + outside > total && total > 0 ? " — more than the card holds" : "") + ".";
        return new BarView("Memory on the card", segments, List.of(
                new BarView.LegendItem("allocated to a container", "seg-alloc"),
                new BarView.LegendItem("used by it (HAMi-Core)", "seg-used"),
                new BarView.LegendItem("used outside HAMi-Core", "seg-outside"),
                new BarView.LegendItem("free", "seg-free")), caption);
    }

    private static BarView.Segment segment(double x, double size, double scale, String css, String title,
                                           String href) {
        return new BarView.Segment(number(x / scale * WIDTH), number(Math.max(0, size) / scale * WIDTH), css, title,
                href);
    }

    private static String number(double value) {
        return String.format(Locale.ROOT, "%.2f", value);
    }
}
