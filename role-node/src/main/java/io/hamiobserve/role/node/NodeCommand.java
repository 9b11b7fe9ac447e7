package io.hamiobserve.role.node;

import io.hamiobserve.edge.Servers;
import io.hamiobserve.app.Serving;
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

/** {@code hami-observe node}: the usage view of this GPU node. */
@Command(name = "node", sortOptions = false,
        description = "The usage view of this GPU node: NVML, HAMi-Core's cache files, the node's HAMi pods.")
public final class NodeCommand implements Subcommand {
    @ParentCommand
    private HamiObserve hamiObserve;

    @Option(names = "--metrics-bind-address", paramLabel = "ADDR",
            description = "where the endpoint listens (HAMi's flag; default " + UsageRole.DEFAULT_BIND + ")")
    private String metricsBind;

    @Option(names = "--usage-bind-address", paramLabel = "ADDR",
            description = "the same, as demo and all name it; wins over --metrics-bind-address")
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
        return 30;
    }

    @Override
    public Integer call() {
        Launch launch = hamiObserve.launch();
        node.nodeName(launch.env()); // refused before anything starts
        Servers.prepare();
        String bind = usageBind != null ? usageBind : metricsBind != null ? metricsBind : UsageRole.DEFAULT_BIND;
        return Serving.serve(List.of(bind), List.of(node.role(launch.env(), legacy.on(), BuildInfo.current())),
                edge.edge(), launch.out(), launch.err());
    }
}
