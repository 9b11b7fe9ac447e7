/**
 * The HTTP edge every endpoint of hami-observe stands behind (Helidon SE): the metrics endpoint
 * with its renderings kept and coalesced, connection and request limits, TLS with reloading,
 * basic auth, the web config file, the probes, the exporter's JVM figures at /observe/metrics and
 * the start-up timeline. It serves any {@link io.hamiobserve.edge.http.MetricsSource}: it knows the
 * exposition engine, and no role, port or command line.
 */
module io.hamiobserve.edge {
    // In the API the roles build on: an endpoint serves an exposition; Servers.Served holds a WebServer.
    requires transitive io.hamiobserve.exposition;
    requires transitive io.helidon.webserver;
    requires io.helidon.webserver.observe;
    requires io.helidon.webserver.observe.metrics;
    requires io.helidon.metrics.api;
    requires io.helidon.http;
    requires io.helidon.common.configurable;
    requires io.helidon.common.pki;
    requires io.helidon.common.tls;
    requires io.helidon.common.task;
    requires bcrypt;
    // The web config file: read bounded and strict (JsonNode comes with it).
    requires io.hamiobserve.configfiles;
    requires java.logging;
    // The start-up timeline's clocks (the JVM's start, its class count).
    requires java.management;

    exports io.hamiobserve.edge;
    exports io.hamiobserve.edge.http;
    exports io.hamiobserve.edge.startup;
}
