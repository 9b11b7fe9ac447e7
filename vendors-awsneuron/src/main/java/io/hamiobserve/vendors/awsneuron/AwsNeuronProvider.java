package io.hamiobserve.vendors.awsneuron;

import io.hamiobserve.domain.CoreUnit;
import io.hamiobserve.domain.DeviceUnits;
import io.hamiobserve.domain.MemoryUnit;
import io.hamiobserve.domain.Quantities;
import io.hamiobserve.domain.RegisteredCard;
import io.hamiobserve.ports.spi.NodeView;
import io.hamiobserve.vendors.protocol.Backend;
import io.hamiobserve.vendors.protocol.HamiDeviceProvider;
import io.hamiobserve.vendors.protocol.NodeResources;
import io.hamiobserve.vendors.protocol.Problems;
import io.hamiobserve.vendors.protocol.SynthesisedCards;

import java.util.List;
import java.util.Set;

/**
 * AWS Neuron ({@code AWSNeuron}): no register annotation. HAMi builds one device per unit of the
 * node's {@code aws.amazon.com/neuron} capacity, named {@code <node>-AWSNeuron-<i>}, with
 * {@code neuroncore / neuron} cores each: sharable that many ways, memory 0 (not accounted) and
 * cores as a bitmask of all its cores ({@code 3} for two). Allocations hold the bitmask of the
 * cores granted (1, 2 or 3 on a two-core device), reported raw by HAMi. Only the allocated key is
 * written.
 *
 * <p>HAMi takes the cores per device from the first node it reads and keeps them for every
 * node; this provider takes them from each node, which is the same wherever a cluster has one
 * Neuron instance family.
 */
public final class AwsNeuronProvider extends HamiDeviceProvider {
    static final Set<String> RESOURCES = Set.of("aws.amazon.com/neuron", "aws.amazon.com/neuroncore");

    static final String DEVICES = "aws.amazon.com/neuron";
    static final String CORES = "aws.amazon.com/neuroncore";
    /** A mask of this many bits is the most a core figure holds ({@link Quantities#MAX_PERCENT} is 2^30). */
    static final long MAX_CORES_PER_DEVICE = 30;

    public AwsNeuronProvider() {
        super("awsneuron", List.of(Backend.named("AWSNeuron")
                .synthesisedFrom(DEVICES, AwsNeuronProvider::devices, Set.of(CORES))
                .units(new DeviceUnits(MemoryUnit.NONE, CoreUnit.CORE_BITMASK))
                .allocatedBy("hami.io/aws-neuron-devices-allocated")
                .build()));
    }

    private static List<RegisteredCard> devices(NodeView node, long devices, Problems problems) {
        long coresPerDevice = NodeResources.whole(node, CORES, problems) / devices;
        if (coresPerDevice > MAX_CORES_PER_DEVICE) {
            problems.about(CORES).add("number_overflow", coresPerDevice + " cores per device; a core mask holds "
                    + MAX_CORES_PER_DEVICE);
            return List.of();
        }
        long mask = (1L << coresPerDevice) - 1;
        int count = SynthesisedCards.count(devices, problems);
        return SynthesisedCards.alike(node, "-AWSNeuron-", count,
                new SynthesisedCards.Shape((int) coresPerDevice, 0, mask, "AWSNeuron"));
    }

    /** The resource names HAMi's default device configuration gives this vendor (count, memory, cores). */
    @Override
    public Set<String> podResources() {
        return RESOURCES;
    }
}
