package io.hamiobserve.vendors.mthreads;

import io.hamiobserve.vendors.protocol.testing.ProviderFuzzCheck;

class MthreadsFuzzTest extends ProviderFuzzCheck {
    MthreadsFuzzTest() {
        super(new MthreadsProvider(), 20_000, "number_overflow not_a_number negative_number bad_uuid wrong_field_count");
    }
}
