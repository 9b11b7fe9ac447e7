package io.hamiobserve.console;

import io.hamiobserve.console.view.TableView;
import io.hamiobserve.domain.fleet.Figure;
import io.hamiobserve.domain.fleet.Severity;

import java.util.Comparator;
import java.util.Locale;

/**
 * One table cell's value: what it reads as, how it sorts and how it exports. A missing figure
 * reads "no data" (its reason in the title), sorts after every known one in either direction,
 * and exports as null with the reason beside it.
 */
sealed interface Value {
    /** Plain text. */
    record Text(String text) implements Value {
    }

    /** A number of a kind; may be missing. */
    record Number(Figure figure, Format.Kind kind) implements Value {
    }

    /** A severity, sorting by how pressing it is. */
    record Graded(Severity severity) implements Value {
    }

    /** A number drawn with a small allocated/used bar beside it. */
    record Bar(Figure figure, Format.Kind kind, TableView.MiniBar bar) implements Value {
    }

    static Value text(String text) {
        return new Text(text == null ? "" : text);
    }

    static Value of(Figure figure, Format.Kind kind) {
        return new Number(figure, kind);
    }

    static Value of(double value, Format.Kind kind) {
        return new Number(Figure.of(value), kind);
    }

    default String display() {
        return switch (this) {
            case Text text -> text.text();
            case Number number -> Format.figure(number.figure(), number.kind());
            case Graded graded -> graded.severity().name().toLowerCase(Locale.ROOT);
            case Bar bar -> Format.figure(bar.figure(), bar.kind());
        };
    }

    default Figure figure() {
        return switch (this) {
            case Number number -> number.figure();
            case Bar bar -> bar.figure();
            default -> null;
        };
    }

    /** The reason a figure is missing, or null. */
    default String missing() {
        Figure figure = figure();
        return figure instanceof Figure.Missing missing ? missing.why().explanation() : null;
    }

    default boolean numeric() {
        return this instanceof Number || this instanceof Bar;
    }

    default String css() {
        if (this instanceof Graded graded) {
            return "sev-" + graded.severity().name().toLowerCase(Locale.ROOT);
        }
        return missing() != null ? "missing" : numeric() ? "num" : "";
    }

    /**
     * The value as exported: a number (whole numbers as integers, so bytes read 8589934592 and
     * not 8.589934592E9), a string, or null for a missing figure.
     */
    default Object exported() {
        return switch (this) {
            case Text text -> text.text();
            case Graded graded -> graded.severity().name().toLowerCase(Locale.ROOT);
            default -> {
                if (!figure().isKnown()) {
                    yield null;
                }
                double value = figure().orElseThrow();
                yield value == Math.rint(value) && Math.abs(value) < 0x1p53 ? (Object) (long) value : (Object) value;
            }
        };
    }

    /** Ascending order; a missing figure is placed by {@link Table}, not here. */
    Comparator<Value> ORDER = (a, b) -> {
        if (a.figure() != null && b.figure() != null) {
            return Double.compare(a.figure().orElseThrow(), b.figure().orElseThrow());
        }
        if (a instanceof Graded x && b instanceof Graded y) {
            return x.severity().compareTo(y.severity());
        }
        return a.display().compareToIgnoreCase(b.display());
    };
}
