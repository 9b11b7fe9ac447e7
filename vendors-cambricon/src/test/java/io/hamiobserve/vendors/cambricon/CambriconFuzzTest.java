package io.hamiobserve.vendors.cambricon;

import io.hamiobserve.vendors.protocol.testing.ProviderFuzzCheck;

class CambriconFuzzTest extends ProviderFuzzCheck {
    CambriconFuzzTest() {
        super(new CambriconProvider(), 20_000, "number_overflow not_a_number negative_number bad_uuid wrong_field_count");
    }
}
