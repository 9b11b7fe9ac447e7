package io.hamiobserve.edge.http;


import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.net.UnknownHostException;
import java.nio.channels.ServerSocketChannel;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * Everything the HTTP edge checks before a role serves, in one place: the limits the flags set, the
 * web config file, its TLS files, and every bind address. A process either passes all of them or
 * stops with a one-line {@link Failure} (exit 2): never a process running without an endpoint, and
 * never a hang on a file or a host name.
 */
public final class EdgeStartup {
    private static final Logger LOG = Logger.getLogger(EdgeStartup.class.getName());

    /**
     * The largest ordinary request head: a Prometheus 3 scrape negotiating every format, with gzip,
     * basic auth (a 40-character password) and its timeout header, to an IPv6 address.
     */
    static final String REFERENCE_SCRAPE = """
            GET /metrics HTTP/1.1\r
            Host: [ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff]:65535\r
            User-Agent: Prometheus/3.5.0\r
            Accept: application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.6,\
            application/openmetrics-text;version=0.0.1;q=0.5,text/plain;version=1.0.0;escaping=allow-utf-8;q=0.4,\
            text/plain;version=0.0.4;q=0.3,*/*;q=0.2\r
            Accept-Encoding: gzip\r
            Authorization: Basic cHJvbWV0aGV1cy1zY3JhcGVyOmEtbG9uZy1nZW5lcmF0ZWQtcGFzc3dvcmQtb2YtZm9ydHktY2hhcnM=\r
            X-Prometheus-Scrape-Timeout-Seconds: 10\r
            \r
            """;
    /** Twice the header block of {@link #REFERENCE_SCRAPE}, rounded up to a power of two (1024). */
    public static final int MIN_HEADER_BYTES = Integer.highestOneBit(2 * headerBlock(REFERENCE_SCRAPE).length()) * 2;
    /** The header fields of {@link #REFERENCE_SCRAPE} and ten more that proxies add (X-Forwarded-*, Via, tracing). */
    public static final int MIN_HEADER_COUNT = (int) headerBlock(REFERENCE_SCRAPE).lines().filter(l -> !l.isBlank()).count()
            + 10;
    static final int MAX_HEADER_BYTES = 1 << 20;
    static final int MAX_HEADER_COUNT = 1024;
    /** A Prometheus pair, kubelet's two probes and an operator's curl, with room to spare. */
    static final int MIN_CONNECTIONS = 8;
    static final int MAX_CONNECTIONS = 1_000_000;
    /** How long a bind address's host name may take to resolve. */
    static final Duration RESOLVE_TIMEOUT = Duration.ofSeconds(10);

    private EdgeStartup() {
    }

    /** A check failed; the message is one line for the operator, and the process exits 2. */
    public static final class Failure extends IllegalArgumentException {
        public Failure(String message) {
            super(message);
        }
    }

    /**
     * The edge of a process after its checks: the limits, and the web config as read from its file.
     *
     * @param edge  the checked edge, its web config read
     * @param binds every address the process listens on, each checked
     */
    public record Checked(EdgeConfig edge, List<String> binds) {
        public Checked {
            binds = List.copyOf(binds);
        }
    }

    /** Runs every check for a process that will listen on {@code binds}; throws {@link Failure}. */
    public static Checked check(EdgeConfig edge, List<String> binds) {
        checkLimits(edge);
        EdgeConfig read = edge.webConfigFile()
                .map(file -> edge.withWeb(Optional.of(failing(() -> WebConfig.read(file)))))
                .orElse(edge);
        read.web().flatMap(WebConfig::tls).ifPresent(settings -> {
            TlsFiles files = failing(() -> TlsFiles.read(settings));
            failing(files::tls);
            files.validityProblem(Instant.now()).ifPresent(problem -> LOG.warning("hami-observe: " + problem));
        });
        read.web().map(WebConfig::bcryptCosts).filter(costs -> costs.size() > 1).ifPresent(costs -> LOG.warning(
                "hami-observe: the basic_auth_users hashes have different bcrypt costs " + costs + ": how long a wrong "
                        + "password takes tells a user of lower cost from an unknown one; give every user one cost"));
        Set<InetSocketAddress> addresses = new HashSet<>();
        for (String bind : binds) {
            InetSocketAddress address = checkBind(bind);
            if (address.getPort() != 0 && !addresses.add(address)) {
                throw new Failure("cannot listen on " + bind + " twice: give each endpoint its own address");
            }
        }
        return new Checked(read, binds);
    }

    private static void checkLimits(EdgeConfig edge) {
        within("--web.max-header-bytes", edge.maxHeaderBytes(), MIN_HEADER_BYTES, MAX_HEADER_BYTES,
                "a Prometheus scrape request with basic auth");
        within("--web.max-headers", edge.maxHeaderCount(), MIN_HEADER_COUNT, MAX_HEADER_COUNT,
                "a Prometheus scrape request behind a proxy");
        within("--web.max-connections", edge.maxConnections(), MIN_CONNECTIONS, MAX_CONNECTIONS,
                "two Prometheus servers, kubelet's probes and a curl");
        within("--web.max-requests", edge.maxConcurrentScrapes(), 1, edge.maxConnections(),
                "one scrape (and no more than --web.max-connections)");
        within("--web.read-timeout", edge.readTimeout(), Duration.ofSeconds(1), Duration.ofHours(1),
                "a request head from a client on a slow network");
        within("--web.idle-timeout", edge.idleTimeout(), Duration.ofSeconds(1), Duration.ofDays(1),
                "Helidon's one-second idle bookkeeping");
        within("--web.scrape-timeout", edge.scrapeTimeout(), Duration.ofMillis(100), Duration.ofHours(1),
                "an answer from a ready rendering");
        within("--web.shutdown-timeout", edge.shutdownDrain(), Duration.ofMillis(100), Duration.ofMinutes(10),
                "a scrape in flight to finish");
    }

    private static void within(String flag, int value, int least, int most, String leastHolds) {
        if (value < least) {
            throw new Failure(flag + " " + value + " is below " + least + ", the least that serves " + leastHolds);
        }
        if (value > most) {
            throw new Failure(flag + " " + value + " is above " + most);
        }
    }

    private static void within(String flag, Duration value, Duration least, Duration most, String leastHolds) {
        if (value.compareTo(least) < 0) {
            throw new Failure(flag + " " + value.toMillis() + "ms is below " + least.toMillis() + "ms, the least that "
                    + "gives " + leastHolds + " time");
        }
        if (value.compareTo(most) > 0) {
            throw new Failure(flag + " " + value.toSeconds() + "s is above " + most.toSeconds() + "s");
        }
    }

    /** The address is parsed, its host resolves, and nothing else listens there: a trial bind succeeds. */
    static InetSocketAddress checkBind(String bind) {
        BindAddress address = failing(() -> BindAddress.parse(bind));
        InetSocketAddress socket = new InetSocketAddress(resolve(bind, address.host()), address.port());
        try (ServerSocketChannel trial = ServerSocketChannel.open()) {
            // As Helidon binds: SO_REUSEADDR, so a port in TIME_WAIT is not mistaken for one in use.
            trial.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            trial.bind(socket);
        } catch (IOException | RuntimeException unusable) {
            throw new Failure("cannot listen on " + bind + ": " + reason(unusable));
        }
        return socket;
    }

    /** Resolves on a thread of its own, so that a resolver that does not answer cannot hold the start. */
    private static InetAddress resolve(String bind, String host) {
        CompletableFuture<InetAddress> lookup = new CompletableFuture<>();
        Thread.ofVirtual().name("hami-observe-resolve").start(() -> {
            try {
                lookup.complete(InetAddress.getByName(host));
            } catch (UnknownHostException | RuntimeException failed) {
                lookup.completeExceptionally(failed);
            }
        });
        try {
            return lookup.get(RESOLVE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException slow) {
            throw new Failure("cannot listen on " + bind + ": the host " + host + " did not resolve within "
                    + RESOLVE_TIMEOUT.toSeconds() + " s");
        } catch (ExecutionException failed) {
            throw new Failure("cannot listen on " + bind + ": " + (failed.getCause() instanceof UnknownHostException
                    ? "the host " + host + " does not resolve" : reason(failed.getCause())));
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new Failure("interrupted while resolving the host " + host);
        }
    }

    private static String reason(Throwable failure) {
        String message = failure.getMessage();
        return message == null || message.isBlank() ? failure.getClass().getSimpleName()
                : message.lines().findFirst().orElse("").strip();
    }

    /** Runs a read or check that reports with {@link IllegalArgumentException}, as a {@link Failure}. */
    private static <T> T failing(Supplier<T> step) {
        try {
            return step.get();
        } catch (Failure failure) {
            throw failure;
        } catch (IllegalArgumentException refused) {
            throw new Failure(refused.getMessage());
        }
    }

    private static String headerBlock(String request) {
        return request.substring(request.indexOf("\r\n") + 2);
    }
}
