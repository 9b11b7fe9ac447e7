package io.hamiobserve.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The series names a PromQL expression reads, and the series this project's endpoints and rules
 * produce: what the Grafana dashboard's, the alert rules' and the console's query-template tests
 * check their expressions against, so a renamed metric fails a test before it empties a panel,
 * silences an alert or blanks a page.
 */
public final class SeriesNames {
    /**
     * A series name: this project's and HAMi's (a recording rule's {@code level:name:operation}
     * whole), and the dcgm-exporter fields; not a label name (one followed by a matcher).
     */
    private static final Pattern METRIC = Pattern.compile(
            "(?<![A-Za-z0-9_:])([a-z_:]*hami_[a-z0-9_:]*[a-z0-9_]|DCGM_FI_[A-Z0-9_]+)(?![A-Za-z0-9_:])"
                    + "(?!\\s*[=!]~?\\s*\")");
    /** A rule that records a series, in a Prometheus rule file. */
    private static final Pattern RECORD = Pattern.compile("^\\s*(?:-\\s*)?record:\\s*[\"']?([A-Za-z_:][A-Za-z0-9_:]*)");
    /** A counter that appears only once something has been skipped; bin/e2e-prometheus provokes it. */
    public static final Set<String> ONLY_LIVE = Set.of("hami_observe_skipped_inputs_total");
    /**
     * An older DCGM's name of a field the demo's dcgm-exporter serves under the newer one
     * ({@code DCGM_FI_DEV_CLOCKS_EVENT_REASONS}): read only as the right side of {@code or}.
     */
    public static final Set<String> OLDER_DCGM = Set.of("DCGM_FI_DEV_CLOCK_THROTTLE_REASONS");
    /**
     * A family the scheduler role writes only when opted in ({@code --metric-opt-in-list}), so no
     * golden exposition holds it: read only as the right side of {@code or}, beside the default
     * series that carry the same labels ({@code hami_observe_container_info}'s owners).
     */
    public static final Set<String> OPT_IN = Set.of("hami_observe_pod_owner");

    private SeriesNames() {
    }

    /** The project's root: the {@code project.root} property the build sets, else the module's parent. */
    public static Path root() {
        return Path.of(System.getProperty("project.root", "..")).toAbsolutePath().normalize();
    }

    /** The series names {@code expression} reads. */
    public static Set<String> in(String expression) {
        Set<String> names = new TreeSet<>();
        Matcher matcher = METRIC.matcher(expression);
        while (matcher.find()) {
            names.add(matcher.group(1));
        }
        return names;
    }

    /**
     * Every series the endpoints export, from the golden expositions (the demo's of both views and
     * of its dcgm-exporter, the node role's over the real adapters, the scheduler role's of dumps the demo does
     * not hold: every vendor, ghost allocations), with {@link #ONLY_LIVE}, {@link #OLDER_DCGM} and
     * {@link #OPT_IN}.
     */
    public static Set<String> exported() {
        Set<String> names = new HashSet<>(ONLY_LIVE);
        names.addAll(OLDER_DCGM);
        names.addAll(OPT_IN);
        for (String module : List.of("demo", "role-node", "role-scheduler")) {
            for (Path golden : files(root().resolve(module + "/src/test/resources/golden"), ".prom")) {
                for (String line : lines(golden)) {
                    if (!line.isBlank() && !line.startsWith("#")) {
                        names.add(line.split("[{ ]", 2)[0]);
                    }
                }
            }
        }
        return names;
    }

    /** Every series the rule files under {@code alerts/} record. */
    public static Set<String> recorded() {
        Set<String> names = new TreeSet<>();
        for (Path rules : files(root().resolve("alerts"), ".rules.yml")) {
            for (String line : lines(rules)) {
                Matcher record = RECORD.matcher(line);
                if (record.find()) {
                    names.add(record.group(1));
                }
            }
        }
        return names;
    }

    private static List<Path> files(Path directory, String suffix) {
        try (Stream<Path> files = Files.list(directory)) {
            return files.filter(p -> p.getFileName().toString().endsWith(suffix)).sorted().toList();
        } catch (IOException unreadable) {
            throw new UncheckedIOException(unreadable);
        }
    }

    private static List<String> lines(Path file) {
        try {
            return Files.readAllLines(file);
        } catch (IOException unreadable) {
            throw new UncheckedIOException(unreadable);
        }
    }
}
