package io.hamiobserve.demo;

import io.hamiobserve.app.cli.HamiObserve;
import io.hamiobserve.app.cli.Launch;
import io.hamiobserve.app.cli.Subcommand;
import io.hamiobserve.role.node.UsageRole;
import io.hamiobserve.role.scheduler.AllocationRole;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code hami-observe demo-history}: the simulated cluster's history, the same the demo's own
 * Prometheus is filled with, written to an OpenMetrics file with timestamps up to now (every
 * series at the last instant), for loading into another engine: promtool's backfill, or
 * VictoriaMetrics' import (bin/e2e-victoriametrics loads both from one file and compares them).
 */
@Command(name = "demo-history", sortOptions = false,
        description = "Write the demo cluster's history up to now as OpenMetrics with timestamps (promtool tsdb "
                + "create-blocks-from openmetrics reads it).")
public final class DemoHistoryCommand implements Subcommand {
    @ParentCommand
    private HamiObserve hamiObserve;

    @Option(names = "--out", paramLabel = "FILE", required = true, description = "the file to write")
    private Path out;

    @Option(names = "--length", paramLabel = "HOURS", defaultValue = "168",
            description = "hours of history, at most 168 (default: ${DEFAULT-VALUE})")
    private int hours;


    @Override
    public int rank() {
        return 15;
    }

    @Override
    public Integer call() throws IOException {
        Launch launch = hamiObserve.launch();
        if (hours < 1 || hours > DemoHistory.LENGTH.toHours()) {
            launch.err().println("hami-observe: demo-history: --length must be 1 to " + DemoHistory.LENGTH.toHours());
            return 2;
        }
        Instant end = Instant.now().minusSeconds(1);
        DemoHistory history = new DemoHistory(DemoCluster.standard(), end.plusSeconds(1));
        // The instances the demo's endpoints have at their default addresses.
        String scheduler = "127.0.0.1" + AllocationRole.DEFAULT_BIND;
        Map<String, String> nodes = new LinkedHashMap<>();
        nodes.put(DemoCluster.NODE_A, "127.0.0.1" + UsageRole.DEFAULT_BIND);
        nodes.put(DemoCluster.NODE_B, "127.0.0.1" + DemoCommand.SECOND_NODE_BIND);
        long samples = history.writeOpenMetrics(List.of(out), end.minus(Duration.ofHours(hours)), end, true,
                scheduler, nodes);
        launch.out().printf("%d samples from %d to %d written to %s%n", samples,
                end.minus(Duration.ofHours(hours)).getEpochSecond(), end.getEpochSecond(), out);
        return 0;
    }
}
