package io.hamiobserve.vendors.vastai;

import io.hamiobserve.vendors.protocol.testing.ProviderFuzzCheck;

class VastaiFuzzTest extends ProviderFuzzCheck {
    VastaiFuzzTest() {
        super(new VastaiProvider(), 20_000, "number_overflow not_a_number negative_number bad_json bad_uuid too_long missing_uuid");
    }
}
