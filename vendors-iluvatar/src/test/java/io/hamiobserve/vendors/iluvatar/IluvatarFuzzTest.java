package io.hamiobserve.vendors.iluvatar;

import io.hamiobserve.vendors.protocol.testing.ProviderFuzzCheck;

class IluvatarFuzzTest extends ProviderFuzzCheck {
    IluvatarFuzzTest() {
        super(new IluvatarProvider(), 20_000, "number_overflow not_a_number negative_number wrong_field_count bad_uuid too_long bad_boolean");
    }
}
