package io.hamiobserve.vendors.all;

import java.util.Set;

/** The vendor families HAMi v2.10's scheduler reports, by provider name: the coverage this build promises. */
final class HamiVendors {
    static final Set<String> NAMES = Set.of("nvidia", "ascend", "hygon", "cambricon", "iluvatar", "mthreads",
            "metax", "enflame", "kunlunxin", "awsneuron", "amd", "vastai", "biren");

    private HamiVendors() {
    }
}
