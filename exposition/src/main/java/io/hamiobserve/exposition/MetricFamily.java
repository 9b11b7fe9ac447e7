package io.hamiobserve.exposition;

import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

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
        return new Points(this, new LastRow());
    }

    /** Starts this family's points for one collection whose families share {@code lastRow}. */
    Points points(LastRow lastRow) {
        return new Points(this, lastRow);
    }

    /**
     * The label values of the last row added to any family of one collection, as stored, per
     * order of the label values ({@code valueIndex}): a family that adds the same values in the
     * same order as the last row of that order (a container's ten usage series, given one array,
     * zoned or not) shares that row's array instead of making its own. Arrays of rows are never
     * written after they are made, so sharing one is safe, and the writer writes a shared array's
     * labels once ({@code TextWriter.LabelBlocks}). One collection, one thread; its orders are
     * its families' few.
     */
    static final class LastRow {
        private final List<int[]> orders = new ArrayList<>();
        private final List<String[]> rows = new ArrayList<>();

        /** The number {@link #ordered} takes for {@code valueIndex}: the same for equal orders. */
        int order(int[] valueIndex) {
            for (int i = 0; i < orders.size(); i++) {
                if (Arrays.equals(orders.get(i), valueIndex)) {
                    return i;
                }
            }
            orders.add(valueIndex);
            rows.add(null);
            return orders.size() - 1;
        }

        /**
         * {@code labelValues} in sorted-name order ({@code valueIndex}, whose number is
         * {@code order}), the last row's array of that order when equal.
         */
        String[] ordered(String[] labelValues, int[] valueIndex, int order) {
            String[] last = rows.get(order);
            if (last != null) {
                int i = 0;
                while (i < last.length && last[i] == valueAt(labelValues, valueIndex[i])) {
                    i++;
                }
                if (i == last.length) {
                    return last;
                }
            }
            String[] ordered = new String[valueIndex.length];
            for (int i = 0; i < ordered.length; i++) {
                ordered[i] = valueAt(labelValues, valueIndex[i]);
            }
            rows.set(order, ordered);
            return ordered;
        }

        private static String valueAt(String[] labelValues, int index) {
            return index < labelValues.length ? labelValues[index] : ZONE_VALUE;
        }
    }

    /**
     * The data points of one family in one scrape. Not thread-safe: one scrape, one thread.
     *
     * <p>Rows are kept as plain value arrays in label-name order and sorted once, cheaply, before
     * the snapshot is built: prometheus-metrics sorts a snapshot's points by their labels, and on
     * input already in that order its sort is linear. At 100,000 containers this is the difference
     * between comparing {@code Labels} objects millions of times and not at all.
     */
    public static final class Points {
        private final MetricFamily family;
        /** Label names sorted, as {@code Labels} keeps them. */
        private final String[] sortedNames;
        /** For each sorted name, its position in the values {@link #add} takes (zone last). */
        private final int[] valueIndex;
        private final List<Row> rows;
        private final LastRow lastRow;
        /** {@link #valueIndex}'s number in {@link #lastRow}. */
        private final int lastRowOrder;
        /**
         * Once sealed: the rows sorted and unique, and the order the sort gave (indexes into
         * {@link #rows}, duplicates included). From then on nothing changes and any thread reads.
         */
        private Row[] sealed;
        private int[] order;
        /** Once sealed: the indexes into {@link #rows} of {@link #sealed}'s rows, in order. */
        private int[] kept;
        /**
         * Once sealed: whether another family of the collection has the same label sets row for
         * row; set on the earlier of the two by the later one's seal, within the collection's
         * sealing, before any of its families is read.
         */
        private boolean rowsShared;

        /**
         * The order the last sort of each family's rows gave, for families of up to
         * {@link #MAX_REMEMBERED_ROWS} rows. A node collects at every scrape and adds the same
         * containers' rows in the same order: checking that the last order still sorts them takes
         * one comparison per row, where sorting takes about log2 of the rows. An order that does not
         * fit (other rows, another role's family of the same name) is found out by that check, at
         * its first row out of order, and replaced: whatever the rows hold, the output is the sort's.
         * One entry per family: families are the catalogues' constants. Arrays held here are never
         * written.
         */
        private static final ConcurrentHashMap<MetricFamily, int[]> LAST_ORDER = new ConcurrentHashMap<>();
        /**
         * How many rows each family had when last sealed, up to {@link #MAX_REMEMBERED_ROWS}: the
         * next collection's rows are sized for as many, not grown row by row.
         */
        private static final ConcurrentHashMap<MetricFamily, Integer> LAST_ROWS = new ConcurrentHashMap<>();
        private static final int MAX_REMEMBERED_ROWS = 1 << 16;

        private record Row(String[] values, double value, int index) {
        }

        private Points(MetricFamily family, LastRow lastRow) {
            this.family = family;
            this.lastRow = lastRow;
            this.rows = new ArrayList<>(LAST_ROWS.getOrDefault(family, 10));
            List<String> all = new ArrayList<>(family.labels);
            if (family.zoned) {
                all.add(ZONE_LABEL);
            }
            Integer[] order = new Integer[all.size()];
            for (int i = 0; i < order.length; i++) {
                order[i] = i;
            }
            Arrays.sort(order, Comparator.comparing(all::get));
            this.sortedNames = new String[order.length];
            this.valueIndex = new int[order.length];
            for (int i = 0; i < order.length; i++) {
                sortedNames[i] = all.get(order[i]);
                valueIndex[i] = order[i];
            }
            this.lastRowOrder = lastRow.order(valueIndex);
        }

        /** Adds a data point; its label values in the order of the family's label names. */
        public void add(double value, String... labelValues) {
            if (sealed != null) {
                throw new IllegalStateException(family.name + " is complete");
            }
            if (labelValues.length != family.labels.size()) {
                throw new IllegalArgumentException(family.name + " takes " + family.labels.size()
                        + " label values, got " + labelValues.length);
            }
            rows.add(new Row(lastRow.ordered(labelValues, valueIndex, lastRowOrder), value, rows.size()));
        }

        public MetricFamily family() {
            return family;
        }

        /** A data point as added: its label values in the order of the family's label names. */
        @FunctionalInterface
        public interface PointConsumer {
            void accept(String[] labelValues, double value);
        }

        /**
         * Each data point added so far, in the order added: what a decorator derives its own
         * points from.
         */
        public void forEach(PointConsumer point) {
            int count = family.labels.size();
            for (Row row : rows) {
                String[] values = new String[count];
                for (int i = 0; i < valueIndex.length; i++) {
                    if (valueIndex[i] < count) {
                        values[valueIndex[i]] = row.values[i];
                    }
                }
                point.accept(values, row.value);
            }
        }

        public boolean isEmpty() {
            return rows.isEmpty();
        }

        /**
         * The family's snapshot. A label set added twice in this scrape keeps its first value, so a
         * duplicate in the input can never make the whole exposition invalid.
         */
        public MetricSnapshot snapshot() {
            return snapshot(new LabelSets());
        }

        /** The family's snapshot, its label sets shared through {@code labelSets} with a scrape's other families. */
        MetricSnapshot snapshot(LabelSets labelSets) {
            Row[] sorted = sealed != null ? sealed : byValues();
            if (family.type == Type.GAUGE) {
                GaugeSnapshot.Builder builder = GaugeSnapshot.builder().name(family.name).help(family.help);
                forEachDistinct(sorted, labelSets, (labels, value) -> builder.dataPoint(
                        GaugeSnapshot.GaugeDataPointSnapshot.builder().labels(labels).value(value).build()));
                return builder.build();
            }
            CounterSnapshot.Builder builder = CounterSnapshot.builder().name(family.name).help(family.help);
            forEachDistinct(sorted, labelSets, (labels, value) -> builder.dataPoint(
                    CounterSnapshot.CounterDataPointSnapshot.builder().labels(labels).value(value).build()));
            return builder.build();
        }

        /**
         * Sorts the rows as the snapshot would and drops each label set added again (its first
         * value stays), and refuses what the library's snapshot refuses (a missing label value, a
         * negative counter); from then on nothing is added and the rows are only read.
         *
         * <p>Families of a catalogue often carry the same label sets added in the same order (a
         * container's ten usage series): where one of {@code sealedBefore} has the same label names
         * and the same label values row for row, its order is taken instead of sorting again.
         */
        void seal(List<Points> sealedBefore) {
            if (sealed != null) {
                return;
            }
            LAST_ROWS.put(family, Math.min(rows.size(), MAX_REMEMBERED_ROWS));
            for (int i = sealedBefore.size() - 1; i >= 0; i--) {
                Points like = sealedBefore.get(i);
                if (like.sealed != null && sameRows(like)) {
                    // The same label sets row for row: the same order, and the same rows kept.
                    Row[] distinct = new Row[like.kept.length];
                    for (int k = 0; k < distinct.length; k++) {
                        distinct[k] = checked(rows.get(like.kept[k]), false);
                    }
                    order = like.order;
                    kept = like.kept;
                    sealed = distinct;
                    rowsShared = true;
                    like.rowsShared = true;
                    return;
                }
            }
            int[] sorted = sortedOrder();
            Row[] distinct = new Row[sorted.length];
            int[] indexes = new int[sorted.length];
            int count = 0;
            String[] previous = null;
            for (int index : sorted) {
                Row row = rows.get(index);
                if (previous != null && Arrays.equals(previous, row.values)) {
                    continue;
                }
                previous = row.values;
                indexes[count] = index;
                distinct[count++] = checked(row, true);
            }
            order = sorted;
            kept = count == indexes.length ? indexes : Arrays.copyOf(indexes, count);
            sealed = count == distinct.length ? distinct : Arrays.copyOf(distinct, count);
        }

        /** {@code row}, refused where the library's snapshot would refuse it; its values checked when asked. */
        private Row checked(Row row, boolean values) {
            if (values) {
                for (String value : row.values) {
                    Objects.requireNonNull(value, () -> family.name + ": a label value is missing");
                }
            }
            if (family.type == Type.COUNTER && row.value < 0) {
                throw new IllegalArgumentException(family.name + "=" + row.value
                        + ": counters cannot have a negative value");
            }
            return row;
        }

        /** The indexes of {@link #rows} in the order of {@link #byValues()}. */
        private int[] sortedOrder() {
            int[] last = LAST_ORDER.get(family);
            if (last != null && last.length == rows.size() && inStableOrder(last)) {
                return last;
            }
            Row[] byValues = byValues();
            int[] sorted = new int[byValues.length];
            for (int i = 0; i < byValues.length; i++) {
                sorted[i] = byValues[i].index;
            }
            if (sorted.length <= MAX_REMEMBERED_ROWS) {
                LAST_ORDER.put(family, sorted);
            }
            return sorted;
        }

        /**
         * Whether {@code order}, a permutation of the rows' indexes, lists them as the stable sort
         * by label values does: each row before the next by its values, or equal to it and added
         * before it. Only one permutation does.
         */
        private boolean inStableOrder(int[] order) {
            for (int k = 1; k < order.length; k++) {
                int compared = Arrays.compare(rows.get(order[k - 1]).values, rows.get(order[k]).values);
                if (compared > 0 || compared == 0 && order[k - 1] > order[k]) {
                    return false;
                }
            }
            return true;
        }

        /** The rows sorted by their label values; a stable sort keeps the first added of equal sets first. */
        private Row[] byValues() {
            Row[] byValues = rows.toArray(Row[]::new);
            Arrays.sort(byValues, (left, right) -> Arrays.compare(left.values, right.values));
            return byValues;
        }

        private boolean sameRows(Points like) {
            if (like.rows.size() != rows.size() || !Arrays.equals(like.sortedNames, sortedNames)) {
                return false;
            }
            for (int i = 0; i < rows.size(); i++) {
                if (!Arrays.equals(like.rows.get(i).values, rows.get(i).values)) {
                    return false;
                }
            }
            return true;
        }

        /** Label names in the order the rows' values are kept: sorted, as {@code Labels} keeps them. */
        String[] sortedNames() {
            return sortedNames;
        }

        /** The order of {@link #rows} the seal gave, duplicates included; not to be changed. */
        int[] sealedOrder() {
            return order;
        }

        /**
         * Whether another family sealed in the same collection has the same label names and label
         * sets row for row (a container's usage series), mostly in the same arrays: what the writer
         * keeps rows' bytes for.
         */
        boolean rowsShared() {
            return rowsShared;
        }

        /** Rows once sealed. */
        int size() {
            return sealed.length;
        }

        /** The label values of sealed row {@code index}, in {@link #sortedNames()} order; not to be changed. */
        String[] labelValues(int index) {
            return sealed[index].values;
        }

        double value(int index) {
            return sealed[index].value;
        }

        /** Each of {@code sorted}'s label sets once, with its first value. */
        private void forEachDistinct(Row[] sorted, LabelSets labelSets, java.util.function.ObjDoubleConsumer<Labels> point) {
            String[] previous = null;
            for (Row row : sorted) {
                if (previous != null && Arrays.equals(previous, row.values)) {
                    continue;
                }
                previous = row.values;
                point.accept(labelSets.of(sortedNames, row.values), row.value);
            }
        }
    }
}
