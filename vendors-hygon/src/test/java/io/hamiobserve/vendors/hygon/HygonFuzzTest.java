package io.hamiobserve.vendors.hygon;

import io.hamiobserve.vendors.protocol.testing.ProviderFuzzCheck;

class HygonFuzzTest extends ProviderFuzzCheck {
    HygonFuzzTest() {
        super(new HygonProvider(), 20_000, "number_overflow not_a_number negative_number wrong_field_count bad_uuid too_long bad_boolean");
    }
}
