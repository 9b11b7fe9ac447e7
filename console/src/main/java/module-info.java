/**
 * The web console: a driving adapter that turns the fleet's history (the {@code FleetHistory}
 * port) into server-rendered pages (Helidon SE routes, jte templates compiled at build time,
 * uPlot charts served from its WebJar), and the same tables as CSV and JSON, and the
 * right-sizing report for the command line. Read-only: it sends nothing back to the cluster.
 */
module io.hamiobserve.console {
    requires transitive io.hamiobserve.ports;
    requires transitive io.helidon.webserver;
    requires io.helidon.http;
    requires gg.jte.runtime;
    requires tools.jackson.databind;
    requires org.apache.commons.csv;
    requires org.snakeyaml.engine;
    requires java.logging;
    // jte marks its generated classes @Generated (source retention only).
    requires static java.compiler;

    exports io.hamiobserve.console;
}
