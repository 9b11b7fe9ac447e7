package io.hamiobserve.app.metrics;

import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The definition of one metric family: name, HELP, type and label names, fixed in a catalogue.
 * Values are produced at scrape time through {@link #points()}.
 *
 * <p>HAMi's own series carry the constant label {@code zone="vGPU"} ({@link #zoned}); this
 * project's additions do not, so they can never be confused with HAMi's.
 *
 * @param name   the full metric name as exposed (for counters without {@code _total}, which the
 *               writer appends)
 * @param help   the HELP text
 * @param type   gauge or counter
 * @param zoned  whether the HAMi constant label {@code zone="vGPU"} is added
 * @param labels label names, in the order {@link Points#add} takes their values
 */
public record MetricFamily(String name, String help, Type type, boolean zoned, List<String> labels) {

    /** The constant label HAMi puts on every series but {@code hami_build_info}. */
    public static final String ZONE_LABEL = "zone";
    public static final String ZONE_VALUE = "vGPU";

    public enum Type { GAUGE, COUNTER }

    public MetricFamily {
        labels = List.copyOf(labels);
    }

    /** A HAMi gauge: carries {@code zone="vGPU"}. */
    public static MetricFamily hamiGauge(String name, String help, String... labels) {
        return new MetricFamily(name, help, Type.GAUGE, true, List.of(labels));
    }

    /** A gauge this project adds. */
    public static MetricFamily gauge(String name, String help, String... labels) {
        return new MetricFamily(name, help, Type.GAUGE, false, List.of(labels));
    }

    /** A counter this project adds; {@code name} is given without {@code _total}. */
    public static MetricFamily counter(String name, String help, String... labels) {
        return new MetricFamily(name, help, Type.COUNTER, false, List.of(labels));
    }

    /** Starts collecting this family's data points for one scrape. */
    public Points points() {
        return new Points(this);
    }

    /** The data points of one family in one scrape. Not thread-safe: one scrape, one thread. */
    public static final class Points {
        private final MetricFamily family;
        private final String[] names;
        private final List<Object> dataPoints = new ArrayList<>();
        private final Set<Labels> seen = new HashSet<>();

        private Points(MetricFamily family) {
            this.family = family;
            List<String> all = new ArrayList<>(family.labels);
            if (family.zoned) {
                all.add(ZONE_LABEL);
            }
            this.names = all.toArray(String[]::new);
        }

        /**
         * Adds a data point. A label set already added in this scrape is ignored: the first value
         * wins, so a duplicate in the input can never make the whole exposition invalid.
         *
         * @return whether the point was added
         */
        public boolean add(double value, String... labelValues) {
            if (labelValues.length != family.labels.size()) {
                throw new IllegalArgumentException(family.name + " takes " + family.labels.size()
                        + " label values, got " + labelValues.length);
            }
            String[] values = labelValues;
            if (family.zoned) {
                values = java.util.Arrays.copyOf(labelValues, labelValues.length + 1);
                values[labelValues.length] = ZONE_VALUE;
            }
            Labels labels = Labels.of(names, values);
            if (!seen.add(labels)) {
                return false;
            }
            dataPoints.add(family.type == Type.GAUGE
                    ? GaugeSnapshot.GaugeDataPointSnapshot.builder().labels(labels).value(value).build()
                    : CounterSnapshot.CounterDataPointSnapshot.builder().labels(labels).value(value).build());
            return true;
        }

        public boolean isEmpty() {
            return dataPoints.isEmpty();
        }

        /** The family's snapshot; a family without points is still written (HELP and TYPE only). */
        public MetricSnapshot snapshot() {
            if (family.type == Type.GAUGE) {
                GaugeSnapshot.Builder builder = GaugeSnapshot.builder().name(family.name).help(family.help);
                dataPoints.forEach(point -> builder.dataPoint((GaugeSnapshot.GaugeDataPointSnapshot) point));
                return builder.build();
            }
            CounterSnapshot.Builder builder = CounterSnapshot.builder().name(family.name).help(family.help);
            dataPoints.forEach(point -> builder.dataPoint((CounterSnapshot.CounterDataPointSnapshot) point));
            return builder.build();
        }
    }
}
