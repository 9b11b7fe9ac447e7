package io.hamiobserve.vendors.awsneuron;

import io.hamiobserve.domain.CardMode;
import io.hamiobserve.domain.CoreUnit;
import io.hamiobserve.domain.DeviceShare;
import io.hamiobserve.domain.DeviceUnits;
import io.hamiobserve.domain.MemoryUnit;
import io.hamiobserve.domain.RegisteredCard;
import io.hamiobserve.domain.VendorCard;
import io.hamiobserve.ports.spi.NodeDevices;
import io.hamiobserve.ports.spi.NodeView;
import io.hamiobserve.ports.spi.PodAllocation;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;

import static io.hamiobserve.vendors.protocol.testing.Decodings.allocation;
import static io.hamiobserve.vendors.protocol.testing.Decodings.cards;
import static io.hamiobserve.vendors.protocol.testing.Decodings.reasons;
import static io.hamiobserve.vendors.protocol.testing.Decodings.shares;
import static io.hamiobserve.vendors.protocol.testing.Decodings.withCapacity;
import static org.junit.jupiter.api.Assertions.assertEquals;

class AwsNeuronProviderTest {
    private final AwsNeuronProvider provider = new AwsNeuronProvider();

    @Test
    void hamisNodeLiteralMakesADeviceWithACoreMask() {
        NodeDevices devices = provider.decodeNode(new NodeView("test", Map.of(),
                Map.of("node.kubernetes.io/instance-type", "inf2"),
                Map.of(AwsNeuronProvider.DEVICES, "1", AwsNeuronProvider.CORES, "2"), Map.of()));
        assertEquals(List.of(), devices.problems());
        assertEquals(List.of(new VendorCard(new RegisteredCard("test-AWSNeuron-0", 0, 2, 0, 3, "AWSNeuron", 0,
                CardMode.HAMI_CORE, true), "AWSNeuron", new DeviceUnits(MemoryUnit.NONE, CoreUnit.CORE_BITMASK))),
                devices.cards());
    }

    @Test
    void aTrn2NodeHasEightCoresPerDevice() {
        NodeDevices devices = withCapacity(provider, "trn2", Map.of(AwsNeuronProvider.DEVICES, "16",
                AwsNeuronProvider.CORES, "128"));
        assertEquals(16, devices.cards().size());
        assertEquals(List.of(255L), cards(devices).stream().map(RegisteredCard::cores).distinct().toList());
        assertEquals(List.of(8), cards(devices).stream().map(RegisteredCard::maxShares).distinct().toList());
        assertEquals(List.of(0L), cards(devices).stream().map(RegisteredCard::memoryMib).distinct().toList());
    }

    @Test
    void aMaskWiderThanTheCoreBoundIsAProblem() {
        NodeDevices devices = withCapacity(provider, "n", Map.of(AwsNeuronProvider.DEVICES, "1",
                AwsNeuronProvider.CORES, "31"));
        assertEquals(List.of(), devices.cards());
        assertEquals(List.of("number_overflow"), reasons(devices.problems()));
        assertEquals(AwsNeuronProvider.CORES, devices.problems().getFirst().key());
    }

    @Test
    void hamisAllocationLiteralsHoldCoreMasks() {
        assertEquals(new PodAllocation("hami.io/aws-neuron-devices-allocated", "AWSNeuron",
                        List.of(shares(new DeviceShare("test1", "AWSNeuron", 0, 3)))),
                allocation(provider, "hami.io/aws-neuron-devices-allocated", "test1,AWSNeuron,0,3:;"));
        // Two devices, the last without its ':', core 1 of the first and both cores of the second.
        assertEquals(List.of(shares(new DeviceShare("test1", "AWSNeuron", 0, 2), new DeviceShare("test2", "AWSNeuron",
                0, 3))), allocation(provider, "hami.io/aws-neuron-devices-allocated",
                "test1,AWSNeuron,0,2:test2,AWSNeuron,0,3;").containers());
        assertEquals(Set.of("hami.io/aws-neuron-devices-allocated"), provider.keys().podAnnotations());
    }
}
