package io.hamiobserve.demo;

import io.hamiobserve.app.testing.Expositions;
import io.hamiobserve.domain.Ledger;
import io.hamiobserve.domain.Shard;
import io.hamiobserve.ports.SchedulerLedgerSource;
import io.hamiobserve.ports.SkipReporter;
import io.hamiobserve.role.node.UsageRole;
import io.hamiobserve.role.scheduler.AllocationRole;
import io.hamiobserve.role.scheduler.ContainerSeries;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Optional;
import java.util.function.Consumer;

/** The fixed state the golden tests render: the demo cluster at a fixed instant. */
final class Fixtures {
    static final Instant NOW = Instant.parse("2026-11-29T12:00:00Z");

    private Fixtures() {
    }

    static DemoWorkload workload() {
        return new DemoWorkload(DemoCluster.standard(), Clock.fixed(NOW, ZoneOffset.UTC));
    }

    /** The allocation role over the demo ledger, loaded once and never changing. */
    static AllocationRole allocation(boolean legacy) {
        return allocation(legacy, ledger -> { });
    }

    /** The same, the ledger handed to {@code loaded} for a test that changes it. */
    static AllocationRole allocation(boolean legacy, Consumer<Ledger> loaded) {
        DemoWorkload workload = workload();
        SchedulerLedgerSource loadOnce = new SchedulerLedgerSource() {
            @Override
            public void start(Ledger ledger, SkipReporter skips) {
                DemoSources.load(workload, ledger);
                loaded.accept(ledger);
            }

            @Override
            public void close() {
            }
        };
        return new AllocationRole(loadOnce, legacy, ContainerSeries.POD_EFFECTIVE, Expositions.BUILD, Shard.ALL,
                workload.clock()).start();
    }

    /** The usage role of a demo node, its HAMi-Core cache files written as real files under {@code cacheRoot}. */
    static UsageRole usage(String node, boolean legacy, Path cacheRoot) {
        DemoWorkload workload = workload();
        return new UsageRole(node, DemoSources.hostCards(workload, node),
                new DemoCacheFiles(workload, node, cacheRoot.resolve(node).resolve("containers")),
                DemoSources.pods(workload, node), Optional.of(DemoSources.processOwners(workload)), legacy,
                Expositions.BUILD,
                workload.clock()).start();
    }
}
