/**
 * AWS Neuron devices as HAMi schedules them: no register annotation; devices built from the node's
 * {@code aws.amazon.com/neuron} and {@code aws.amazon.com/neuroncore} capacity, shares from
 * {@code hami.io/aws-neuron-devices-allocated} (the only key HAMi writes), cores kept as the raw
 * core bitmask.
 */
module io.hamiobserve.vendors.awsneuron {
    requires io.hamiobserve.vendors.protocol;

    provides io.hamiobserve.ports.spi.DeviceProvider with io.hamiobserve.vendors.awsneuron.AwsNeuronProvider;
}
