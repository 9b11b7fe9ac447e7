package io.hamiobserve.role.scheduler;

import io.hamiobserve.edge.Servers;
import io.hamiobserve.app.Serving;
import io.hamiobserve.adapters.k8s.KubernetesSources;
import io.hamiobserve.app.cli.Converters;
import io.hamiobserve.app.cli.EdgeFlags;
import io.hamiobserve.app.cli.HamiObserve;
import io.hamiobserve.app.cli.Launch;
import io.hamiobserve.app.cli.LegacyMetricsFlag;
import io.hamiobserve.app.cli.MetricSelectionFlags;
import io.hamiobserve.app.cli.Subcommand;
import io.hamiobserve.app.metrics.BuildInfo;
import io.hamiobserve.domain.Shard;
import io.hamiobserve.ports.SchedulerLedgerSource;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;

/** {@code hami-observe scheduler}: the allocation view of a live cluster, or of a snapshot file. */
@Command(name = "scheduler", sortOptions = false,
        description = {"The allocation view of a cluster (kubeconfig or in-cluster config, as fabric8 finds it), "
                + "or of a 'kubectl get nodes,pods,resourcequotas,replicasets,jobs -A -o yaml|json' dump "
                + "(replicasets and jobs name each pod's Deployment or CronJob; without them a pod's "
                + "pod-template-hash label still names its Deployment)."})
public final class SchedulerCommand implements Subcommand {
    @ParentCommand
    private HamiObserve hamiObserve;

    @Option(names = "--metrics-bind-address", paramLabel = "ADDR",
            description = "where the endpoint listens (HAMi's flag; default " + AllocationRole.DEFAULT_BIND + ")")
    private String metricsBind;

    @Option(names = "--allocation-bind-address", paramLabel = "ADDR",
            description = "the same, as demo and all name it; wins over --metrics-bind-address")
    private String allocationBind;

    @Option(names = "--snapshot", paramLabel = "FILE",
            description = "read nodes, pods, quotas, replicasets and jobs from a kubectl -o yaml/json dump "
                    + "instead of a cluster")
    private Path snapshot;

    @Option(names = "--once", negatable = true, arity = "0..1", fallbackValue = "true",
            description = "print one exposition to stdout and exit")
    private boolean once;

    @Option(names = "--sync-timeout", paramLabel = "DURATION", defaultValue = "60s",
            converter = Converters.PositiveDuration.class,
            description = "with --once and a live cluster: how long to wait for the first complete list "
                    + "(default: ${DEFAULT-VALUE})")
    private Duration syncTimeout;

    @Option(names = "--per-container-vgpu-series", negatable = true, arity = "0..1", fallbackValue = "true",
            description = "HAMi v2.9's hami_vgpu_*_allocated_* series: one per container position instead of "
                    + "v2.10's one per pod and card (container_index 0, the pod's effective use)")
    private boolean perContainerVgpuSeries;

    @Mixin
    private ShardFlags sharding;

    @Mixin
    private LegacyMetricsFlag legacy;

    @Mixin
    private MetricSelectionFlags metricSelection;

    @Mixin
    private EdgeFlags edge;

    @Override
    public boolean serves() {
        return true;
    }

    @Override
    public int rank() {
        return 20;
    }

    @Override
    public Integer call() {
        Launch launch = hamiObserve.launch();
        Shard shard = sharding.shard(launch.env()); // refused before anything starts
        var selection = metricSelection.selection(AllocationMetrics.OPT_IN);
        if (!once) {
            Servers.prepare();
        }
        SchedulerLedgerSource source = snapshot == null ? KubernetesSources.cluster()
                : KubernetesSources.snapshot(snapshot);
        AllocationRole role = new AllocationRole(source, legacy.on(), perContainerVgpuSeries
                ? ContainerSeries.PER_CONTAINER : ContainerSeries.POD_EFFECTIVE, BuildInfo.current(), shard,
                Clock.systemUTC(), selection);
        if (!once) {
            return Serving.serve(List.of(bind()), List.of(role), edge.edge(), launch.out(), launch.err());
        }
        if (snapshot == null) {
            // fabric8 logs every retry with a stack trace; a one-shot command says why it failed in one line.
            Logger.getLogger("io.fabric8").setLevel(Level.SEVERE);
        }
        return printOnce(role, launch);
    }

    private String bind() {
        return allocationBind != null ? allocationBind : metricsBind != null ? metricsBind : AllocationRole.DEFAULT_BIND;
    }

    /** Waits for the ledger (at most the sync timeout; a source that gave up ends it at once), then prints it. */
    private int printOnce(AllocationRole role, Launch launch) {
        try (role) {
            role.start();
            long deadline = System.nanoTime() + syncTimeout.toNanos();
            while (!role.ready()) {
                Optional<String> givenUp = role.givenUp();
                if (givenUp.isPresent()) {
                    launch.err().println("hami-observe: " + givenUp.get());
                    return 2;
                }
                if (System.nanoTime() >= deadline) {
                    launch.err().println("hami-observe: the ledger did not sync within " + syncTimeout.toSeconds()
                            + " s" + role.failure().map(failure -> ": " + failure.message()).orElse(""));
                    return 1;
                }
                Thread.sleep(50);
            }
            Serving.print(role, launch.out());
            return 0;
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            return 1;
        }
    }
}
