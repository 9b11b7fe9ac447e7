/**
 * What every role of hami-observe shares: the launcher ({@code hami-observe [COMMAND]}, on picocli,
 * with the commands of the role modules on the module path, found as
 * {@link io.hamiobserve.app.cli.Subcommand} services), the HTTP edge every endpoint stands behind
 * (Helidon SE: limits, TLS, basic auth, probes), the exposition engine (series written by
 * prometheus-metrics' text writers, kept per segment between scrapes, or by its own text writer,
 * the library's bytes exactly, where a whole collection is written at every scrape), the role lifecycle and the
 * exporter's own series. It knows no adapter and no role: a role is a module that requires it.
 */
module io.hamiobserve.app {
    // SkipCounter is the SkipReporter the roles hand to their adapters.
    requires transitive io.hamiobserve.ports;
    // In the API the roles build on: Servers.Served, picocli's annotations, the engine's snapshots.
    requires transitive io.helidon.webserver;
    requires transitive info.picocli;
    requires transitive io.prometheus.metrics.model;
    requires transitive io.prometheus.writer.text;
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
    requires java.logging;
    // The start-up timeline's clocks (the JVM's start, its class count).
    requires java.management;

    exports io.hamiobserve.app;
    exports io.hamiobserve.app.cli;
    exports io.hamiobserve.app.exposition;
    exports io.hamiobserve.app.http;
    exports io.hamiobserve.app.metrics;

    // picocli reads the launcher's annotations and sets the shared flags.
    opens io.hamiobserve.app.cli to info.picocli;

    uses io.hamiobserve.app.cli.Subcommand;
}
