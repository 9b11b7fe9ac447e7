package io.hamiobserve.console;

import io.hamiobserve.domain.fleet.Figure;

import java.time.Duration;
import java.util.Locale;

/** How figures read on a page: binary units for memory, one decimal where it helps, no false precision. */
final class Format {
    private static final double KIB = 1024;
    private static final double MIB = KIB * 1024;
    private static final double GIB = MIB * 1024;
    private static final double TIB = GIB * 1024;

    private Format() {
    }

    static String bytes(double bytes) {
        double size = Math.abs(bytes);
        if (size >= TIB) {
            return number(bytes / TIB, 1) + " TiB";
        }
        if (size >= GIB) {
            return number(bytes / GIB, size >= 100 * GIB ? 0 : 1) + " GiB";
        }
        if (size >= MIB) {
            return number(bytes / MIB, 0) + " MiB";
        }
        if (size >= KIB) {
            return number(bytes / KIB, 0) + " KiB";
        }
        return number(bytes, 0) + " B";
    }

    static String mib(double mib) {
        return mib >= 1024 && mib % 1024 == 0 ? number(mib / 1024, 0) + " GiB ("
                + number(mib, 0) + " MiB)" : mib >= 1024 ? number(mib / 1024, 2) + " GiB (" + number(mib, 0) + " MiB)"
                : number(mib, 0) + " MiB";
    }

    /** A 0–1 fraction as a percentage; above 100 % stays above (overcommit is shown as it is). */
    static String fraction(double fraction) {
        double percent = fraction * 100;
        return number(percent, Math.abs(percent) < 10 ? 1 : 0) + " %";
    }

    /** A value already in percent (HAMi's cores and utilisation). */
    static String percent(double percent) {
        return number(percent, percent != Math.rint(percent) && Math.abs(percent) < 10 ? 1 : 0) + " %";
    }

    static String count(double count) {
        return number(count, count == Math.rint(count) ? 0 : 1);
    }

    static String seconds(double seconds) {
        if (seconds < 120) {
            return number(seconds, 0) + " s";
        }
        Duration duration = Duration.ofSeconds(Math.round(seconds));
        if (duration.toHours() < 2) {
            return duration.toMinutes() + " min";
        }
        if (duration.toDays() < 2) {
            return duration.toHours() + " h";
        }
        return duration.toDays() + " d";
    }

    static String duration(Duration duration) {
        long seconds = duration.toSeconds();
        if (seconds % 86400 == 0) {
            return seconds / 86400 + "d";
        }
        if (seconds % 3600 == 0) {
            return seconds / 3600 + "h";
        }
        return seconds % 60 == 0 ? seconds / 60 + "m" : seconds + "s";
    }

    static String number(double value, int decimals) {
        if (Double.isInfinite(value)) {
            return value > 0 ? "∞" : "-∞";
        }
        return String.format(Locale.ROOT, "%,." + decimals + "f", value);
    }

    /** Text for a figure of a kind; a missing figure reads "no data" (its reason goes in a title). */
    static String figure(Figure figure, Kind kind) {
        return figure.isKnown() ? kind.format(figure.orElseThrow()) : "no data";
    }

    /** What a number is, for formatting, sorting and export. */
    enum Kind {
        TEXT, BYTES, MIB, MIB_CHANGE, FRACTION, PERCENT, PERCENT_CHANGE, COUNT, DECIMAL, SECONDS, CELSIUS, WATTS,
        HOURS;

        String format(double value) {
            return switch (this) {
                case BYTES -> bytes(value);
                case MIB -> mib(value);
                case MIB_CHANGE -> (value > 0 ? "+" : "") + number(value, 0) + " MiB";
                case PERCENT_CHANGE -> (value > 0 ? "+" : "") + percent(value);
                case DECIMAL -> number(value, 1);
                case FRACTION -> fraction(value);
                case PERCENT -> percent(value);
                case COUNT, TEXT -> count(value);
                case SECONDS -> seconds(value);
                case CELSIUS -> number(value, 0) + " °C";
                case WATTS -> number(value, 0) + " W";
                case HOURS -> number(value, value < 10 ? 2 : 1);
            };
        }

        boolean numeric() {
            return this != TEXT;
        }
    }
}
