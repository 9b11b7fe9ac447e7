package io.hamiobserve.console.view;

import java.util.List;

/**
 * A sortable, filterable, paged table with its export links.
 *
 * @param id        the table's name in the URL's parameters (e.g. {@code cards.sort})
 * @param total     rows before filtering; {@code filtered} after
 * @param hidden    the page's other parameters, kept by the filter form
 * @param reasons   why figures in the table are missing, one line each
 */
public record TableView(String id, String title, String caption, List<Header> headers, List<Row> rows, int total,
                        int filtered, int page, int pages, String filter, String action, List<Hidden> hidden,
                        String csv, String json, Link previous, Link next, List<String> reasons, String empty)
        implements Section {

    /** A column heading: a link that sorts by it, and the query behind its figures. */
    public record Header(String title, String sortHref, String sorted, boolean numeric, String query, String help) {
    }

    public record Row(List<Cell> cells) {
    }

    /**
     * @param title tooltip (a missing figure's reason, a full UUID)
     * @param css   "", "missing", "sev-critical", ...
     * @param bar   a small allocated/used bar, or null
     */
    public record Cell(String text, String href, String title, String css, MiniBar bar) {
    }

    /** Allocated and used as fractions of the whole (each 0–1; {@code over} when use passes allocation). */
    public record MiniBar(double allocated, double used, boolean over) {
        public String allocatedWidth() {
            return width(allocated);
        }

        public String usedWidth() {
            return width(used);
        }

        private static String width(double fraction) {
            return String.format(java.util.Locale.ROOT, "%.1f", Math.max(0, Math.min(1, fraction)) * 100);
        }
    }

    public record Hidden(String name, String value) {
    }
}
