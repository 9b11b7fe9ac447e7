package io.hamiobserve.vendors.enflame;

import io.hamiobserve.vendors.protocol.testing.ProviderFuzzCheck;

class EnflameFuzzTest extends ProviderFuzzCheck {
    EnflameFuzzTest() {
        super(new EnflameProvider(), 20_000, "number_overflow not_a_number negative_number bad_json no_profiles");
    }
}
