/**
 * The application: wires adapters to the domain through the ports, and serves the allocation
 * view ({@code :9395/metrics}) and the usage view ({@code :9394/metrics}) with Helidon SE.
 * Exposition is written by prometheus-metrics' text writers from per-scrape snapshots; the
 * allocation view keeps each node's writer output between scrapes and renders only what changed.
 */
module io.hamiobserve.app {
    requires io.hamiobserve.ports;
    requires io.hamiobserve.adapters.cachefile;
    requires io.hamiobserve.adapters.nvml;
    requires io.hamiobserve.adapters.k8s;
    requires io.hamiobserve.adapters.prometheus;
    requires io.hamiobserve.console;
    requires io.hamiobserve.testkit;
    requires io.helidon.webserver;
    requires io.helidon.webserver.observe;
    requires io.helidon.webserver.observe.metrics;
    requires io.helidon.metrics.api;
    requires io.helidon.http;
    requires io.helidon.common.configurable;
    requires io.helidon.common.pki;
    requires io.helidon.common.tls;
    requires io.helidon.common.task;
    requires bcrypt;
    requires tools.jackson.core;
    requires tools.jackson.databind;
    requires tools.jackson.dataformat.yaml;
    requires org.snakeyaml.engine;
    requires io.prometheus.metrics.model;
    requires io.prometheus.writer.text;
    requires java.logging;
    requires info.picocli;

    // picocli sets the commands' options and reads their annotations.
    opens io.hamiobserve.app to info.picocli;
    opens io.hamiobserve.app.cli to info.picocli;
    opens io.hamiobserve.app.demo to info.picocli;

    uses io.hamiobserve.app.cli.Subcommand;
    provides io.hamiobserve.app.cli.Subcommand with io.hamiobserve.app.demo.DemoCommand, io.hamiobserve.app.SchedulerCommand,
            io.hamiobserve.app.NodeCommand, io.hamiobserve.app.AllCommand, io.hamiobserve.app.InspectCacheCommand,
            io.hamiobserve.app.ConsoleCommand, io.hamiobserve.app.RightsizeCommand;
}
