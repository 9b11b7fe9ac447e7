package io.hamiobserve.vendors.ascend;

import io.hamiobserve.vendors.protocol.testing.ProviderFuzzCheck;

class AscendFuzzTest extends ProviderFuzzCheck {
    AscendFuzzTest() {
        super(new AscendProvider(), 20_000, "number_overflow not_a_number negative_number bad_json bad_uuid too_long missing_uuid");
    }
}
