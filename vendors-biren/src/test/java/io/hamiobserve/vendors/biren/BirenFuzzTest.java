package io.hamiobserve.vendors.biren;

import io.hamiobserve.vendors.protocol.testing.ProviderFuzzCheck;

class BirenFuzzTest extends ProviderFuzzCheck {
    BirenFuzzTest() {
        super(new BirenProvider(), 20_000, "number_overflow not_a_number negative_number bad_json bad_uuid too_long missing_uuid");
    }
}
