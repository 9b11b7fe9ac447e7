/**
 * The fleet's history from Prometheus's HTTP API ({@code /api/v1/query}, {@code /api/v1/query_range}):
 * a fixed catalogue of named PromQL templates, label values escaped where they are filled in,
 * answers decoded with Jackson into the domain's readings, each with the query it came from.
 */
module io.hamiobserve.adapters.prometheus {
    // PrometheusFleetHistory is returned as the FleetHistory port: its users need the ports module too.
    requires transitive io.hamiobserve.ports;
    requires java.net.http;
    requires tools.jackson.databind;
    // The query backend's http_config file (Prometheus's own YAML format), read bounded and strict.
    requires io.hamiobserve.configfiles;
    requires java.logging;

    exports io.hamiobserve.adapters.prometheus;

    // The vendors' usage exporters, as each vendor module maps them; the adapter names no vendor.
    uses io.hamiobserve.ports.spi.UsageExporterMapping;
}
