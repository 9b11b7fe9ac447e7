package io.hamiobserve.console.view;

import java.util.List;

/**
 * A chart drawn in the browser by uPlot from {@code data} (JSON in a data attribute: no inline script).
 *
 * @param queries the anchors of the queries behind its lines
 * @param note    a line under the chart (e.g. what the horizontal lines are), or ""
 */
public record ChartView(String id, String title, String data, List<String> queries, String note) implements Section {
}
