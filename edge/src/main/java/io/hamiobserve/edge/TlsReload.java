package io.hamiobserve.edge;

import io.hamiobserve.edge.http.TlsFiles;
import io.hamiobserve.edge.http.WebConfig;
import io.helidon.common.tls.Tls;
import io.helidon.metrics.api.Gauge;
import io.helidon.metrics.api.Metrics;
import io.helidon.metrics.api.Tag;
import io.helidon.webserver.WebServer;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Logger;

/**
 * Serves a renewed certificate without a restart, as exporter-toolkit does: the TLS files are
 * checked for changes every {@link #PERIOD}, and a changed set that reads and checks cleanly
 * ({@link TlsFiles#read}) replaces the one every server presents. A set that does not is logged and
 * the previous one kept. The served certificate's expiry is the gauge
 * {@value #EXPIRY_SERIES}{@code {cert_file}} at {@code /observe/metrics}, beside the exporter's other
 * figures about itself.
 */
final class TlsReload implements AutoCloseable {
    static final String EXPIRY_SERIES = "hami_observe_tls_certificate_expiry_timestamp_seconds";
    static final Duration PERIOD = Duration.ofSeconds(30);
    private static final Logger LOG = Logger.getLogger(TlsReload.class.getName());
    private static final ScheduledExecutorService WATCHER = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().name("hami-observe-tls-reload").daemon().factory());
    /** Expiry by certificate file: one gauge per file for the process, whichever servers present it. */
    private static final Map<Path, AtomicLong> EXPIRIES = new ConcurrentHashMap<>();

    private final WebConfig.Tls settings;
    private final List<WebServer> servers;
    private final AtomicLong expiry;
    private volatile List<Object> stamp;
    private final ScheduledFuture<?> watch;

    TlsReload(TlsFiles served, List<WebServer> servers, Duration period) {
        this.settings = served.settings();
        this.servers = List.copyOf(servers);
        this.stamp = stamp(settings);
        this.expiry = EXPIRIES.computeIfAbsent(settings.certFile(), file -> {
            AtomicLong seconds = new AtomicLong();
            Metrics.globalRegistry().getOrCreate(Gauge.builder(EXPIRY_SERIES, seconds::get)
                    .description("When the TLS certificate served expires (the earliest of its chain), "
                            + "in seconds since the epoch")
                    .baseUnit("seconds")
                    .tags(List.of(Tag.create("cert_file", file.toString()))));
            return seconds;
        });
        expiry.set(served.earliestExpiry().getEpochSecond());
        this.watch = WATCHER.scheduleWithFixedDelay(this::reloadIfChanged, period.toMillis(), period.toMillis(),
                TimeUnit.MILLISECONDS);
    }

    void reloadIfChanged() {
        List<Object> now = stamp(settings);
        if (now.equals(stamp)) {
            return;
        }
        stamp = now;
        try {
            TlsFiles files = TlsFiles.read(settings);
            Tls tls = files.tls();
            servers.forEach(server -> server.reloadTls(tls));
            expiry.set(files.earliestExpiry().getEpochSecond());
            LOG.info("hami-observe: serving the renewed certificate in " + settings.certFile() + ", valid until "
                    + files.earliestExpiry());
            files.validityProblem(Instant.now()).ifPresent(problem -> LOG.warning("hami-observe: " + problem));
        } catch (IllegalArgumentException unusable) {
            LOG.warning("hami-observe: the changed TLS files are not used, the previous certificate is still "
                    + "served: " + unusable.getMessage());
        }
    }

    /** What identifies a version of the files: each one's modification time and size (or its absence). */
    private static List<Object> stamp(WebConfig.Tls settings) {
        List<Path> files = new ArrayList<>(List.of(settings.certFile(), settings.keyFile()));
        settings.clientCaFile().ifPresent(files::add);
        List<Object> stamp = new ArrayList<>();
        for (Path file : files) {
            try {
                stamp.add(Files.getLastModifiedTime(file));
                stamp.add(Files.size(file));
            } catch (IOException gone) {
                stamp.add("missing");
            }
        }
        return stamp;
    }

    @Override
    public void close() {
        watch.cancel(false);
    }
}
