/**
 * What tests and the demo need to meet reality and production code does not: HAMi-Core's cache
 * files written in their real binary layout and changed in place as HAMi-Core changes them
 * ({@link io.hamiobserve.testkit.CacheFileImage}), and a node's pod directory that holds fixed pods
 * ({@link io.hamiobserve.testkit.FixedPods}), a scratch directory deleted when closed
 * ({@link io.hamiobserve.testkit.ScratchDirectory}), and a Prometheus that misbehaves on purpose
 * ({@link io.hamiobserve.testkit.FakePrometheus}). The demo requires it; no image holds it.
 */
module io.hamiobserve.testkit {
    requires io.hamiobserve.adapters.cachefile.layout;
    requires transitive io.hamiobserve.ports;

    exports io.hamiobserve.testkit;
}
