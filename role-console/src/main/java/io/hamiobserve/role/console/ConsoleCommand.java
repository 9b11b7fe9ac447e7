package io.hamiobserve.role.console;

import io.hamiobserve.edge.Servers;
import io.hamiobserve.app.Serving;
import io.hamiobserve.app.cli.Converters;
import io.hamiobserve.app.cli.EdgeFlags;
import io.hamiobserve.app.cli.HamiObserve;
import io.hamiobserve.app.cli.Launch;
import io.hamiobserve.app.cli.Subcommand;
import io.hamiobserve.console.ConsoleSettings;
import io.hamiobserve.ports.FleetHistory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

import java.time.Duration;
import java.util.List;

/** {@code hami-observe console}: the web console over a Prometheus that scrapes the endpoints. */
@Command(name = "console", sortOptions = false,
        description = "The web console over a Prometheus that scrapes the endpoints (docs/console.md).")
public final class ConsoleCommand implements Subcommand {
    @ParentCommand
    private HamiObserve hamiObserve;

    @Mixin
    private PrometheusFlags prometheus;

    @Mixin
    private ConsoleFlags console;

    @Mixin
    private EdgeFlags edge;

    @Mixin
    private PriceFlags prices;

    @Option(names = "--console.refresh-interval", paramLabel = "DURATION", defaultValue = "60s",
            converter = Converters.PositiveDuration.class,
            description = "read the fleet-wide figures again this often, whether or not anyone is looking "
                    + "(default: ${DEFAULT-VALUE}; docs/console.md gives Prometheus's cost)")
    private Duration refresh;

    @Option(names = "--console.summary-refresh-interval", paramLabel = "DURATION", defaultValue = "1h",
            converter = Converters.PositiveDuration.class,
            description = "read the summaries over a window (each container's use over 14 days, the week's "
                    + "card-hours) again this often, never more often than the refresh; pages say how old they are "
                    + "(default: ${DEFAULT-VALUE}; docs/console.md gives Prometheus's cost)")
    private Duration summaryRefresh;

    @Option(names = "--console.keep-windows", paramLabel = "WINDOW", split = ",",
            converter = RightsizeCommand.Window.class,
            description = "also read the pages' other windows (24h, 7d, 14d, 30d; comma-separated) in the background "
                    + "every summary interval, so their first visit is served kept; each costs Prometheus about as "
                    + "much as the default window's read (docs/benchmarks.md). Default: none")
    private List<Duration> keptWindows = List.of();

    @Option(names = "--console.keep-visited", paramLabel = "DURATION", defaultValue = "24h",
            converter = Converters.NonNegativeDuration.class,
            description = "go on reading a window a visitor asked for (a page's other window, over every container "
                    + "or the card-hours) with the summaries, until this long after its last visit: a window in use "
                    + "is then served kept, one nobody looks at costs nothing; 0 reads only the kept windows "
                    + "(default: ${DEFAULT-VALUE})")
    private Duration keepVisited;

    @Option(names = "--console.other-windows-refresh-interval", paramLabel = "DURATION", defaultValue = "6h",
            converter = Converters.NonNegativeDuration.class,
            description = "read the pages' other windows (24h, 7d, 14d, 30d; those no summary round reads) this often, "
                    + "so their first visit is served kept, at most this old; never more often than the summaries; "
                    + "0 reads them only when visited (default: ${DEFAULT-VALUE}; docs/console.md gives the cost)")
    private Duration otherWindowsRefresh;

    @Spec
    private CommandSpec spec;

    @Option(names = "--console.ready-timeout", paramLabel = "DURATION", defaultValue = "60s",
            converter = Converters.PositiveDuration.class,
            description = "/readyz waits at most this long for the first read of those figures at start "
                    + "(default: ${DEFAULT-VALUE})")
    private Duration readyTimeout;

    @Option(names = "--console.idle-after", paramLabel = "DURATION", defaultValue = "24h",
            converter = Converters.PositiveDuration.class,
            description = "the Stuck page lists a share idle once its container has launched no kernel for this "
                    + "long (default: ${DEFAULT-VALUE}, as the HamiIdleGpuAllocation alert)")
    private Duration idleAfter;

    @Override
    public boolean serves() {
        return true;
    }

    @Override
    public int rank() {
        return 60;
    }

    @Override
    public Integer call() {
        ConsoleSettings kept;
        try {
            kept = ConsoleSettings.defaults().withKeptWindows(keptWindows);
        } catch (IllegalArgumentException notOffered) {
            throw new ParameterException(spec.commandLine(), "--console.keep-windows: " + notOffered.getMessage());
        }
        Launch launch = hamiObserve.launch();
        FleetHistory history = prometheus.required();
        Servers.prepare();
        ConsoleServing.Served served = ConsoleServing.serve(edge.edge(), console.bind(), kept
                .withRoutePrefix(console.routePrefix()).withPrometheusExternal(console.prometheusExternal())
                .withRefresh(refresh, readyTimeout).withPrices(prices.prices())
                .withSummaryRefresh(summaryRefresh)
                // A read waits for a slot, then has its own timeout: a page waits for no more than three.
                .withReadLimit(prometheus.timeout().multipliedBy(3))
                .withIdleAfter(idleAfter).withKeepVisited(keepVisited)
                .withOtherWindowsRefresh(otherWindowsRefresh), history);
        launch.out().printf("hami-observe: console on :%d%s, reading %s%n", served.server().port(),
                served.console().home(), history.description());
        launch.out().flush();
        Serving.stopOnShutdown(List.of(served.server()), List.of(), edge.edge().shutdownDrain());
        return KEEP_RUNNING;
    }
}
