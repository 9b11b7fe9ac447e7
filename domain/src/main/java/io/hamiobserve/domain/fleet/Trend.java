package io.hamiobserve.domain.fleet;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * One line of a chart: values at evenly spaced instants. A step without a sample is NaN and is
 * drawn as a gap, never as zero.
 *
 * @param measure     what the line shows
 * @param label       which part it shows (a card's UUID, a node), empty for a total
 * @param provenance  the query behind it
 * @param times       epoch seconds of each step
 * @param values      the value at each step, NaN where there was no sample
 */
public record Trend(Measure measure, String label, Provenance provenance, long[] times, double[] values) {
    public Trend {
        Objects.requireNonNull(measure);
        Objects.requireNonNull(label);
        if (times.length != values.length) {
            throw new IllegalArgumentException("times and values differ in length");
        }
        times = times.clone();
        values = values.clone();
    }

    @Override
    public long[] times() {
        return times.clone();
    }

    @Override
    public double[] values() {
        return values.clone();
    }

    public int size() {
        return times.length;
    }

    /** The value at step {@code i}, or missing when there was no sample. */
    public Figure at(int i) {
        return Double.isNaN(values[i]) ? Figure.missing(Absence.NOT_REPORTED) : Figure.of(values[i]);
    }

    /** Whether any step has a sample. */
    public boolean hasData() {
        return Arrays.stream(values).anyMatch(value -> !Double.isNaN(value));
    }

    /**
     * A trend of {@code steps} evenly spaced instants from {@code start}, {@code step} seconds apart,
     * with the samples given as (time, value) pairs placed at their step; steps without one are NaN.
     */
    public static Trend aligned(Measure measure, String label, Provenance provenance, long start, long step,
                                int steps, List<double[]> samples) {
        long[] times = new long[steps];
        double[] values = new double[steps];
        Arrays.fill(values, Double.NaN);
        for (int i = 0; i < steps; i++) {
            times[i] = start + i * step;
        }
        for (double[] sample : samples) {
            long offset = Math.round((sample[0] - start) / step);
            if (offset >= 0 && offset < steps) {
                values[(int) offset] = sample[1];
            }
        }
        return new Trend(measure, label, provenance, times, values);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Trend that && measure == that.measure && label.equals(that.label)
                && provenance.equals(that.provenance) && Arrays.equals(times, that.times)
                && Arrays.equals(values, that.values);
    }

    @Override
    public int hashCode() {
        return Objects.hash(measure, label, provenance, Arrays.hashCode(times), Arrays.hashCode(values));
    }

    @Override
    public String toString() {
        return "Trend[" + measure + " " + label + ", " + times.length + " steps]";
    }
}
