package io.hamiobserve.role.console;

import io.hamiobserve.app.cli.HamiObserve;
import io.hamiobserve.app.cli.Launch;
import io.hamiobserve.app.cli.Subcommand;
import io.hamiobserve.console.RightsizeReport;
import io.hamiobserve.ports.FleetHistory;
import io.hamiobserve.ports.SourceUnavailableException;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.TypeConversionException;

import java.time.Duration;
import java.time.Instant;

/** {@code hami-observe rightsize}: the console's right-sizing recommendations, printed. */
@Command(name = "rightsize", sortOptions = false,
        description = "Right-sizing recommendations for nvidia.com/gpumem and nvidia.com/gpucores per workload "
                + "(a controller's container across every pod it had), from a Prometheus.")
public final class RightsizeCommand implements Subcommand {
    @ParentCommand
    private HamiObserve hamiObserve;

    @Mixin
    private PrometheusFlags prometheus;

    @Option(names = "--window", paramLabel = "DURATION", defaultValue = "14d", converter = Window.class,
            description = "how far back to look: whole minutes to 90 days, like 14d, 24h, 90m (default: ${DEFAULT-VALUE})")
    private Duration window;

    @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "table",
            description = "table, json, csv, yaml, html, or patch: per workload a strategic-merge patch of its "
                    + "containers' nvidia.com/gpumem and nvidia.com/gpucores and the kubectl line that applies it "
                    + "(default: ${DEFAULT-VALUE})")
    private RightsizeReport.Format format;

    @Option(names = "--namespace", paramLabel = "NAMESPACE", description = "only the workloads of this namespace")
    private String namespace;

    @Option(names = "--owner-kind", paramLabel = "KIND",
            description = "only workloads of this controller kind: Deployment, StatefulSet, CronJob, DaemonSet, Job, "
                    + "Pod (bare pods), ...")
    private String ownerKind;

    @Option(names = "--by-pod", description = "one row per pod and container instead of per workload (debugging)")
    private boolean byPod;

    @Option(names = "--cluster", paramLabel = "NAME",
            description = "one cluster's workloads only, by the --cluster-label label (default: all of them)")
    private String cluster;

    @Override
    public int rank() {
        return 70;
    }

    @Override
    public Integer call() {
        Launch launch = hamiObserve.launch();
        FleetHistory whole = prometheus.required();
        if (cluster != null && cluster.isBlank()) {
            launch.err().println("hami-observe: rightsize: --cluster needs a name");
            return 2;
        }
        FleetHistory history = cluster == null ? whole : whole.inCluster(cluster);
        try {
            RightsizeReport.write(history, Instant.now(), window, new RightsizeReport.Options(format,
                    java.util.Optional.ofNullable(namespace), java.util.Optional.ofNullable(ownerKind), byPod),
                    launch.out());
            return 0;
        } catch (SourceUnavailableException unavailable) {
            // One line, whatever the source said: a script reads it, a person sees why.
            launch.err().println("hami-observe: rightsize: " + String.valueOf(unavailable.getMessage())
                    .replaceAll("\\s*\\R\\s*", " ").replaceAll("\\p{Cc}", "?"));
            return 1;
        }
    }

    /** 14d, 7d, 24h, 90m: a window of whole minutes, at most 90 days. */
    public static final class Window implements ITypeConverter<Duration> {
        @Override
        public Duration convert(String text) {
            String value = text.trim();
            try {
                long amount = Long.parseLong(value.substring(0, value.length() - 1));
                Duration window = switch (value.charAt(value.length() - 1)) {
                    case 'd' -> Duration.ofDays(amount);
                    case 'h' -> Duration.ofHours(amount);
                    case 'm' -> Duration.ofMinutes(amount);
                    default -> throw new NumberFormatException();
                };
                if (window.toMinutes() < 1 || window.compareTo(Duration.ofDays(90)) > 0) {
                    throw new TypeConversionException("'" + text + "' is not between 1m and 90d");
                }
                return window;
            } catch (NumberFormatException | StringIndexOutOfBoundsException notWindow) {
                throw new TypeConversionException("'" + text + "' is not a window like 14d, 24h or 90m");
            }
        }
    }
}
