package io.hamiobserve.vendors.amd;

import io.hamiobserve.vendors.protocol.testing.ProviderFuzzCheck;

class AmdFuzzTest extends ProviderFuzzCheck {
    AmdFuzzTest() {
        super(new AmdProvider(), 20_000, "number_overflow not_a_number negative_number bad_json bad_uuid too_long missing_uuid");
    }
}
