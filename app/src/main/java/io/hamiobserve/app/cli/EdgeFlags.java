package io.hamiobserve.app.cli;

import io.hamiobserve.edge.http.EdgeStartup;
import io.hamiobserve.edge.http.EdgeConfig;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * The flags of the HTTP edge every endpoint shares, named as Prometheus's exporter-toolkit names
 * them ({@code --web.*}); a mixin of every command that serves. The defaults are
 * {@link EdgeConfig#defaults()}'s (a test holds them together).
 */
public final class EdgeFlags {
    @Option(names = "--web.config.file", paramLabel = "FILE",
            description = "TLS and basic auth, in the exporter-toolkit format (default: none)")
    private Path webConfigFile;

    @Option(names = "--web.max-requests", paramLabel = "N", defaultValue = "16",
            converter = Converters.PositiveCount.class,
            description = "concurrent scrapes before a fast 503 (default: ${DEFAULT-VALUE})")
    private int maxRequests;

    @Option(names = "--web.scrape-timeout", paramLabel = "DURATION", defaultValue = "8s",
            converter = Converters.PositiveDuration.class,
            description = "scrape deadline, lowered by X-Prometheus-Scrape-Timeout-Seconds minus 0.5s "
                    + "(default: ${DEFAULT-VALUE})")
    private Duration scrapeTimeout;

    @Option(names = "--web.read-timeout", paramLabel = "DURATION", defaultValue = "10s",
            converter = Converters.PositiveDuration.class,
            description = "one socket read of a request (default: ${DEFAULT-VALUE})")
    private Duration readTimeout;

    @Option(names = "--web.idle-timeout", paramLabel = "DURATION", defaultValue = "60s",
            converter = Converters.PositiveDuration.class,
            description = "idle keep-alive connections close (default: ${DEFAULT-VALUE})")
    private Duration idleTimeout;

    @Option(names = "--web.max-header-bytes", paramLabel = "N", defaultValue = "8192",
            converter = Converters.PositiveCount.class,
            description = "request header block, bytes (default: ${DEFAULT-VALUE})")
    private int maxHeaderBytes;

    @Option(names = "--web.max-headers", paramLabel = "N", defaultValue = "64",
            converter = Converters.PositiveCount.class,
            description = "request header fields (default: ${DEFAULT-VALUE})")
    private int maxHeaders;

    @Option(names = "--web.max-connections", paramLabel = "N", defaultValue = "2048",
            converter = Converters.PositiveCount.class,
            description = "open connections per endpoint (default: ${DEFAULT-VALUE})")
    private int maxConnections;

    @Option(names = "--web.shutdown-timeout", paramLabel = "DURATION", defaultValue = "5s",
            converter = Converters.PositiveDuration.class,
            description = "on SIGTERM, how long in-flight scrapes may finish (default: ${DEFAULT-VALUE})")
    private Duration shutdownTimeout;

    /** The edge these flags describe; the web config file is read at start-up ({@code EdgeStartup}). */
    public EdgeConfig edge() {
        EdgeConfig edge = EdgeConfig.defaults()
                .withMaxConcurrentScrapes(maxRequests)
                .withScrapeTimeout(scrapeTimeout)
                .withReadTimeout(readTimeout)
                .withIdleTimeout(idleTimeout)
                .withHeaderLimits(maxHeaderBytes, maxHeaders)
                .withMaxConnections(maxConnections)
                .withShutdownDrain(shutdownTimeout);
        return Optional.ofNullable(webConfigFile).map(edge::withWebConfigFile).orElse(edge);
    }
}
