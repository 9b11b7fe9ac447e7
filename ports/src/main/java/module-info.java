/**
 * What the domain needs from the outside world, named by capability: where the scheduler's
 * ledger comes from, where per-container usage and whole-card readings come from, which pods run
 * on this node and who owns a host process. Adapters implement these; the app wires them.
 *
 * <p>{@code spi} holds the extension point for device vendors ({@link io.hamiobserve.ports.spi.DeviceProvider}):
 * a new vendor is a new module that {@code provides} it.
 */
module io.hamiobserve.ports {
    requires transitive io.hamiobserve.domain;

    exports io.hamiobserve.ports;
    exports io.hamiobserve.ports.spi;
}
