package io.hamiobserve.vendors.metax;

import io.hamiobserve.vendors.protocol.testing.ProviderFuzzCheck;

class MetaxFuzzTest extends ProviderFuzzCheck {
    MetaxFuzzTest() {
        super(new MetaxProvider(), 20_000, "number_overflow not_a_number negative_number bad_json bad_uuid missing_uuid");
    }
}
