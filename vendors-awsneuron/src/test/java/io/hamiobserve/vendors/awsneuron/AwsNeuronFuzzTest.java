package io.hamiobserve.vendors.awsneuron;

import io.hamiobserve.vendors.protocol.testing.ProviderFuzzCheck;

class AwsNeuronFuzzTest extends ProviderFuzzCheck {
    AwsNeuronFuzzTest() {
        super(new AwsNeuronProvider(), 20_000, "number_overflow not_a_number negative_number bad_uuid");
    }
}
