/**
 * The host's view of its cards: NVML through JNA for whole-card readings, and the process table
 * for who holds memory on a card.
 */
module io.hamiobserve.adapters.nvml {
    requires transitive io.hamiobserve.ports;
    requires com.sun.jna;

    exports io.hamiobserve.adapters.nvml;
}
