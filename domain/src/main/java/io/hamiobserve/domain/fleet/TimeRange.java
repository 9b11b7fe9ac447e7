package io.hamiobserve.domain.fleet;

import java.time.Duration;
import java.util.Locale;
import java.util.Optional;

/**
 * The ranges a trend chart offers. Each is drawn with {@value #POINTS} points, about one per two
 * pixels of a chart's width: finer steps cost Prometheus more without drawing anything more.
 */
public enum TimeRange {
    HOUR("1h", Duration.ofHours(1)),
    SIX_HOURS("6h", Duration.ofHours(6)),
    DAY("24h", Duration.ofHours(24)),
    WEEK("7d", Duration.ofDays(7)),
    MONTH("30d", Duration.ofDays(30));

    public static final int POINTS = 240;

    private final String label;
    private final Duration length;

    TimeRange(String label, Duration length) {
        this.label = label;
        this.length = length;
    }

    public String label() {
        return label;
    }

    public Duration length() {
        return length;
    }

    /** The step between points, never below 15 s (a common scrape interval). */
    public Duration step() {
        return Duration.ofSeconds(Math.max(15, length.toSeconds() / POINTS));
    }

    public static Optional<TimeRange> parse(String text) {
        if (text == null) {
            return Optional.empty();
        }
        for (TimeRange range : values()) {
            if (range.label.equals(text.trim().toLowerCase(Locale.ROOT))) {
                return Optional.of(range);
            }
        }
        return Optional.empty();
    }
}
