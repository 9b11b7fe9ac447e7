package io.hamiobserve.role.scheduler;

import io.hamiobserve.domain.AllocationView;
import io.hamiobserve.exposition.AllSegments;
import io.hamiobserve.exposition.FamilyDecorator;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** A view's gauge series as the allocation endpoint describes them, for tests that compare series. */
final class GaugeSeries {
    private GaugeSeries() {
    }

    /** Per family name, each label set's value (labels sorted by name); one series per label set is asserted. */
    static Map<String, Map<Map<String, String>, Double>> of(AllocationView view, ContainerSeries form) {
        AllSegments all = new AllSegments(FamilyDecorator.NONE);
        AllocationMetrics.describe(view, form, all);
        Map<String, Map<Map<String, String>, Double>> byName = new HashMap<>();
        for (MetricSnapshot snapshot : all.snapshots()) {
            if (snapshot instanceof GaugeSnapshot gauge) {
                Map<Map<String, String>, Double> points = new HashMap<>();
                for (GaugeSnapshot.GaugeDataPointSnapshot point : gauge.getDataPoints()) {
                    Map<String, String> labels = new TreeMap<>();
                    point.getLabels().forEach(label -> labels.put(label.getName(), label.getValue()));
                    assertEquals(null, points.put(labels, point.getValue()), "one series per label set");
                }
                byName.put(gauge.getMetadata().getPrometheusName(), points);
            }
        }
        return byName;
    }
}
