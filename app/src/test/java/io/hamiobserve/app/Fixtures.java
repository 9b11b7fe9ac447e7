package io.hamiobserve.app;

import io.hamiobserve.app.demo.DemoCacheFiles;
import io.hamiobserve.app.demo.DemoCluster;
import io.hamiobserve.app.demo.DemoSources;
import io.hamiobserve.app.demo.DemoWorkload;
import io.hamiobserve.app.http.ExpositionFormat;
import io.hamiobserve.app.http.MetricsSource;
import io.hamiobserve.app.metrics.BuildInfo;
import io.hamiobserve.domain.Ledger;
import io.hamiobserve.ports.SchedulerLedgerSource;
import io.hamiobserve.ports.SkipReporter;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Optional;

/** The fixed state the golden tests render: the demo cluster at a fixed instant. */
final class Fixtures {
    static final Instant NOW = Instant.parse("2026-11-29T12:00:00Z");
    static final BuildInfo BUILD = new BuildInfo("0.1.0", "abc1234", "2026-11-29T00:00:00Z", "java21", "javac",
            "linux/amd64");

    private Fixtures() {
    }

    static DemoWorkload workload() {
        return new DemoWorkload(DemoCluster.standard(), Clock.fixed(NOW, ZoneOffset.UTC));
    }

    /** The allocation role over the demo ledger, loaded once and never changing. */
    static AllocationRole allocation(boolean legacy) {
        DemoWorkload workload = workload();
        SchedulerLedgerSource loadOnce = new SchedulerLedgerSource() {
            @Override
            public void start(Ledger ledger, SkipReporter skips) {
                DemoSources.load(workload, ledger);
            }

            @Override
            public void close() {
            }
        };
        return new AllocationRole(loadOnce, legacy, BUILD).start();
    }

    /** The usage role of a demo node, its HAMi-Core cache files written as real files under {@code cacheRoot}. */
    static UsageRole usage(String node, boolean legacy, Path cacheRoot) {
        DemoWorkload workload = workload();
        return new UsageRole(node, DemoSources.hostCards(workload, node),
                new DemoCacheFiles(workload, node, cacheRoot.resolve(node).resolve("containers")),
                DemoSources.pods(workload, node), Optional.of(DemoSources.processOwners(workload)), legacy, BUILD,
                workload.clock()).start();
    }

    static String render(MetricsSource source, ExpositionFormat format) {
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            source.collect().write(out, format.writer());
            return out.toString(StandardCharsets.UTF_8);
        } catch (IOException impossible) {
            throw new UncheckedIOException(impossible);
        }
    }

    /** Source durations are the one thing that differs between two renderings of the same state. */
    static String withoutDurations(String exposition) {
        return exposition.replaceAll("(?m)^(hami_observe_scrape_source_duration_seconds\\{[^}]*}) .*$", "$1 <duration>");
    }
}
