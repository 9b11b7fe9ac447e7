package io.hamiobserve.edge.http;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * The limits one endpoint's HTTP edge enforces. Every value is positive; durations are wall-clock.
 *
 * @param maxConcurrentScrapes scrapes of {@code /metrics} served at once; one more answers 503 at
 *                             once (probes are not counted). Default 16.
 * @param scrapeTimeout        the longest a scrape waits for its exposition before answering 503; a
 *                             shorter {@code X-Prometheus-Scrape-Timeout-Seconds} (minus
 *                             {@link #SCRAPE_TIMEOUT_MARGIN}) wins. Default 8 s, under Prometheus's 10 s.
 * @param readTimeout          the longest a request's head (request line and headers) may take to
 *                             arrive, from the accept for a connection's first request and from the
 *                             first byte for a later one; then the connection is closed. Default 10 s.
 * @param idleTimeout          a keep-alive connection idle this long is closed. Default 60 s.
 * @param maxHeaderBytes       the request's header block, in bytes; beyond it 431. Default 8192.
 * @param maxHeaderCount       header fields per request; beyond it 431. Default 64.
 * @param maxRequestLineBytes  the request line (method, path, version), in bytes; beyond it 414/400. Default 2048.
 * @param maxConnections       open TCP connections per endpoint; near it, new connections evict those
 *                             waiting longest without a request ({@link ConnectionGuard}); at it,
 *                             further ones wait in the accept backlog. Default 2048.
 * @param shutdownDrain        on shutdown, how long in-flight scrapes may run before the server
 *                             stops. Default 5 s (the process exits well within Kubernetes' 30 s,
 *                             and within 10 s).
 * @param webConfigFile        {@code --web.config.file}: read at start-up into {@code web}
 * @param web                  TLS and basic auth; empty means plain HTTP without auth
 */
public record EdgeConfig(int maxConcurrentScrapes, Duration scrapeTimeout, Duration readTimeout,
                         Duration idleTimeout, int maxHeaderBytes, int maxHeaderCount, int maxRequestLineBytes,
                         int maxConnections, Duration shutdownDrain, Optional<Path> webConfigFile,
                         Optional<WebConfig> web) {

    /** Subtracted from Prometheus's scrape timeout header so the answer arrives before Prometheus gives up. */
    public static final Duration SCRAPE_TIMEOUT_MARGIN = Duration.ofMillis(500);

    public EdgeConfig {
        positive(maxConcurrentScrapes, "max concurrent scrapes");
        positive(maxHeaderBytes, "max header bytes");
        positive(maxHeaderCount, "max header count");
        positive(maxRequestLineBytes, "max request line bytes");
        positive(maxConnections, "max connections");
        for (Duration duration : new Duration[] {scrapeTimeout, readTimeout, idleTimeout, shutdownDrain}) {
            if (duration.isNegative() || duration.isZero()) {
                throw new IllegalArgumentException("durations of the HTTP edge must be positive: " + duration);
            }
        }
        Objects.requireNonNull(webConfigFile);
        Objects.requireNonNull(web);
    }

    public static EdgeConfig defaults() {
        return new EdgeConfig(16, Duration.ofSeconds(8), Duration.ofSeconds(10), Duration.ofSeconds(60), 8192, 64,
                2048, 2048, Duration.ofSeconds(5), Optional.empty(), Optional.empty());
    }

    public EdgeConfig withMaxConcurrentScrapes(int value) {
        return new EdgeConfig(value, scrapeTimeout, readTimeout, idleTimeout, maxHeaderBytes, maxHeaderCount,
                maxRequestLineBytes, maxConnections, shutdownDrain, webConfigFile, web);
    }

    public EdgeConfig withScrapeTimeout(Duration value) {
        return new EdgeConfig(maxConcurrentScrapes, value, readTimeout, idleTimeout, maxHeaderBytes, maxHeaderCount,
                maxRequestLineBytes, maxConnections, shutdownDrain, webConfigFile, web);
    }

    public EdgeConfig withReadTimeout(Duration value) {
        return new EdgeConfig(maxConcurrentScrapes, scrapeTimeout, value, idleTimeout, maxHeaderBytes, maxHeaderCount,
                maxRequestLineBytes, maxConnections, shutdownDrain, webConfigFile, web);
    }

    public EdgeConfig withIdleTimeout(Duration value) {
        return new EdgeConfig(maxConcurrentScrapes, scrapeTimeout, readTimeout, value, maxHeaderBytes, maxHeaderCount,
                maxRequestLineBytes, maxConnections, shutdownDrain, webConfigFile, web);
    }

    public EdgeConfig withHeaderLimits(int bytes, int count) {
        return new EdgeConfig(maxConcurrentScrapes, scrapeTimeout, readTimeout, idleTimeout, bytes, count,
                maxRequestLineBytes, maxConnections, shutdownDrain, webConfigFile, web);
    }

    public EdgeConfig withMaxConnections(int value) {
        return new EdgeConfig(maxConcurrentScrapes, scrapeTimeout, readTimeout, idleTimeout, maxHeaderBytes,
                maxHeaderCount, maxRequestLineBytes, value, shutdownDrain, webConfigFile, web);
    }

    public EdgeConfig withShutdownDrain(Duration value) {
        return new EdgeConfig(maxConcurrentScrapes, scrapeTimeout, readTimeout, idleTimeout, maxHeaderBytes,
                maxHeaderCount, maxRequestLineBytes, maxConnections, value, webConfigFile, web);
    }

    public EdgeConfig withWeb(Optional<WebConfig> value) {
        return new EdgeConfig(maxConcurrentScrapes, scrapeTimeout, readTimeout, idleTimeout, maxHeaderBytes,
                maxHeaderCount, maxRequestLineBytes, maxConnections, shutdownDrain, webConfigFile, value);
    }

    /** The web config file to read at start-up (see {@code EdgeStartup}). */
    public EdgeConfig withWebConfigFile(Path file) {
        return new EdgeConfig(maxConcurrentScrapes, scrapeTimeout, readTimeout, idleTimeout, maxHeaderBytes,
                maxHeaderCount, maxRequestLineBytes, maxConnections, shutdownDrain, Optional.of(file), web);
    }

    /** The deadline of one scrape, given Prometheus's scrape timeout header when it was sent. */
    public Duration deadline(Optional<String> scrapeTimeoutHeader) {
        if (scrapeTimeoutHeader.isEmpty()) {
            return scrapeTimeout;
        }
        try {
            double seconds = Double.parseDouble(scrapeTimeoutHeader.get().trim());
            if (!(seconds > 0) || Double.isInfinite(seconds)) {
                return scrapeTimeout;
            }
            Duration asked = Duration.ofNanos((long) (Math.min(seconds, 3600) * 1e9)).minus(SCRAPE_TIMEOUT_MARGIN);
            // A header shorter than the margin still gets a chance to answer from a ready rendering.
            Duration floor = Duration.ofMillis(100);
            Duration bounded = asked.compareTo(floor) < 0 ? floor : asked;
            return bounded.compareTo(scrapeTimeout) < 0 ? bounded : scrapeTimeout;
        } catch (NumberFormatException notNumber) {
            return scrapeTimeout;
        }
    }

    private static void positive(int value, String what) {
        if (value <= 0) {
            throw new IllegalArgumentException(what + " must be positive: " + value);
        }
    }
}
