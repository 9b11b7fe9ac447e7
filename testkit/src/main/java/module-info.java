/**
 * What tests and the demo need to meet reality and production code does not: HAMi-Core's cache
 * files written in their real binary layout and changed in place as HAMi-Core changes them
 * ({@link io.hamiobserve.testkit.CacheFileImage}), and a node's pod directory that holds fixed pods
 * ({@link io.hamiobserve.testkit.FixedPods}), and a scratch directory deleted when closed
 * ({@link io.hamiobserve.testkit.ScratchDirectory}). The demo requires it; no image holds it.
 */
module io.hamiobserve.testkit {
    requires io.hamiobserve.adapters.cachefile.layout;
    requires transitive io.hamiobserve.ports;

    exports io.hamiobserve.testkit;
}
