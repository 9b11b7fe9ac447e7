package io.hamiobserve.console;

import io.hamiobserve.console.view.ChartView;
import io.hamiobserve.domain.fleet.Trend;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.List;

/**
 * Chart data for the browser: aligned arrays of times and values (uPlot's shape) in JSON, put in
 * a data attribute that the page's script reads. Steps without a sample are null, which uPlot
 * draws as a gap; flat marks (a peak, a recommendation, a request) are lines of one value.
 */
final class Charts {
    private static final ObjectMapper JSON = JsonMapper.builder().build();

    private Charts() {
    }

    /** What a chart's axis measures: the script formats ticks and the legend by it. */
    enum Unit { BYTES, PERCENT, CELSIUS, WATTS, CARDS }

    /**
     * One line.
     *
     * @param style the colour and stroke, by role: total, allocated, used, peak, recommended, temperature, power
     */
    record Line(String label, String style, Trend trend) {
    }

    /** A horizontal line across the chart. */
    record Mark(String label, String style, double value) {
    }

    static ChartView chart(String id, String title, Unit unit, long[] times, List<Line> lines, List<Mark> marks,
                           List<String> queries, String note) {
        ObjectNode data = JSON.createObjectNode();
        data.put("unit", unit.name().toLowerCase(java.util.Locale.ROOT));
        ArrayNode timeArray = data.putArray("times");
        for (long time : times) {
            timeArray.add(time);
        }
        ArrayNode series = data.putArray("series");
        for (Line line : lines) {
            ObjectNode each = series.addObject();
            each.put("label", line.label());
            each.put("style", line.style());
            ArrayNode values = each.putArray("values");
            for (double value : line.trend().values()) {
                if (Double.isNaN(value) || Double.isInfinite(value)) {
                    values.addNull();
                } else {
                    values.add(value);
                }
            }
        }
        for (Mark mark : marks) {
            ObjectNode each = series.addObject();
            each.put("label", mark.label());
            each.put("style", mark.style());
            each.put("flat", true);
            ArrayNode values = each.putArray("values");
            for (int i = 0; i < times.length; i++) {
                values.add(mark.value());
            }
        }
        boolean empty = lines.stream().noneMatch(line -> line.trend().hasData());
        String shown = empty ? (note.isEmpty() ? "" : note + " ") + "No samples in this range: nothing is drawn "
                + "(a gap is no data, never zero)." : note;
        return new ChartView(id, title, JSON.writeValueAsString(data), new ArrayList<>(queries), shown);
    }
}
