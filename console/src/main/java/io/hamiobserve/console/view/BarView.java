package io.hamiobserve.console.view;

import java.util.List;

/**
 * A stacked bar drawn as SVG on the server: x and width in a 0–1000 view box.
 *
 * @param legend the segments' kinds, each with its CSS class
 */
public record BarView(String title, List<Segment> segments, List<LegendItem> legend, String caption)
        implements Section {
    public record Segment(String x, String width, String css, String title, String href) {
    }

    public record LegendItem(String text, String css) {
    }
}
