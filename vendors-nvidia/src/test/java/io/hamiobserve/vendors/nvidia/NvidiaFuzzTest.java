package io.hamiobserve.vendors.nvidia;

import io.hamiobserve.vendors.protocol.testing.ProviderFuzzCheck;

class NvidiaFuzzTest extends ProviderFuzzCheck {
    NvidiaFuzzTest() {
        super(new NvidiaProvider(), 40_000, "number_overflow not_a_number negative_number bad_json bad_uuid too_long "
                + "too_many_cards wrong_field_count unknown_mode too_many_devices bad_mig_allocation duplicate_uuid");
    }
}
