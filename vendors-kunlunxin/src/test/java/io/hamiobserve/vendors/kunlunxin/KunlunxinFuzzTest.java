package io.hamiobserve.vendors.kunlunxin;

import io.hamiobserve.vendors.protocol.testing.ProviderFuzzCheck;

class KunlunxinFuzzTest extends ProviderFuzzCheck {
    KunlunxinFuzzTest() {
        super(new KunlunxinProvider(), 20_000, "number_overflow not_a_number negative_number bad_json bad_uuid too_long missing_uuid");
    }
}
