package io.hamiobserve.demo;

import io.hamiobserve.edge.Servers;
import io.hamiobserve.app.Serving;
import io.hamiobserve.role.node.NodeFlags;
import io.hamiobserve.role.node.UsageRole;
import io.hamiobserve.role.scheduler.AllocationRole;
import io.hamiobserve.adapters.k8s.KubernetesSources;
import io.hamiobserve.app.cli.EdgeFlags;
import io.hamiobserve.app.cli.HamiObserve;
import io.hamiobserve.app.cli.Launch;
import io.hamiobserve.app.cli.LegacyMetricsFlag;
import io.hamiobserve.app.cli.Subcommand;
import io.hamiobserve.app.metrics.BuildInfo;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

import java.util.List;

/** {@code hami-observe all}: the scheduler and node roles in one process, each on its own port. */
@Command(name = "all", sortOptions = false,
        description = "The scheduler and node roles in one process, each on its own port (a developer's machine "
                + "that is a GPU node of a cluster; no image holds both).")
public final class AllCommand implements Subcommand {
    @ParentCommand
    private HamiObserve hamiObserve;

    @Option(names = "--allocation-bind-address", paramLabel = "ADDR", defaultValue = AllocationRole.DEFAULT_BIND,
            description = "the allocation endpoint (default: ${DEFAULT-VALUE})")
    private String allocationBind;

    @Option(names = "--usage-bind-address", paramLabel = "ADDR", defaultValue = UsageRole.DEFAULT_BIND,
            description = "the usage endpoint (default: ${DEFAULT-VALUE})")
    private String usageBind;

    @Mixin
    private NodeFlags node;

    @Mixin
    private LegacyMetricsFlag legacy;

    @Mixin
    private EdgeFlags edge;

    @Override
    public boolean serves() {
        return true;
    }

    @Override
    public int rank() {
        return 40;
    }

    @Override
    public Integer call() {
        Launch launch = hamiObserve.launch();
        node.nodeName(launch.env()); // refused before anything starts
        Servers.prepare();
        BuildInfo build = BuildInfo.current();
        return Serving.serve(List.of(allocationBind, usageBind),
                List.of(new AllocationRole(KubernetesSources.cluster(), legacy.on(), build),
                        node.role(launch.env(), legacy.on(), build)),
                edge.edge(), launch.out(), launch.err());
    }
}
