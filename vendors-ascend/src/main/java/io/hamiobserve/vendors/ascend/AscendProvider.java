package io.hamiobserve.vendors.ascend;

import io.hamiobserve.domain.CoreUnit;
import io.hamiobserve.domain.DeviceUnits;
import io.hamiobserve.domain.MemoryUnit;
import io.hamiobserve.ports.spi.NodeView;
import io.hamiobserve.vendors.protocol.Backend;
import io.hamiobserve.vendors.protocol.HamiDeviceProvider;
import io.hamiobserve.vendors.protocol.ModeField;
import io.hamiobserve.vendors.protocol.RegisterFormat;

import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Huawei Ascend: HAMi runs one backend per entry of its {@code vnpus.configs}, keyed by the
 * entry's CommonWord; these are the CommonWords of HAMi's chart. Each registers in HAMi's JSON
 * ({@code custominfo} ignored), the plugin writing the CommonWord as the type; memory is MB as the
 * chip reports it (HAMi treats it as MiB). Cores are AI cores (the chip's AICore count; template
 * allocations hold 0), or percent on a node annotated {@code hami-vnpu-core: "true"}, whose
 * plugin runs in HAMi-Core mode and registers {@code 100 × scaling}.
 */
public final class AscendProvider extends HamiDeviceProvider {
    /** HAMi's chart: {@code devices.ascend} {@code vnpus.configs[].commonWord}. */
    static final List<String> COMMON_WORDS = List.of("Ascend910A", "Ascend910B2", "Ascend910B3", "Ascend910B4-1",
            "Ascend910B4", "Ascend310P", "Ascend910C");
    static final Set<String> RESOURCES = COMMON_WORDS.stream().flatMap(model -> Stream.of("huawei.com/" + model,
                "huawei.com/" + model + "-memory", "huawei.com/" + model + "-core")).collect(Collectors.toUnmodifiableSet());

    /** The node annotation that overrides HAMi's {@code hamiVnpuCore} for the node. */
    static final String HAMI_CORE_NODE = "hami-vnpu-core";

    private static final DeviceUnits TEMPLATE_MODE = new DeviceUnits(MemoryUnit.MIB, CoreUnit.AI_CORES);

    public AscendProvider() {
        super("ascend", COMMON_WORDS.stream().map(AscendProvider::backend).toList());
    }

    private static Backend backend(String commonWord) {
        return Backend.named(commonWord)
                .registeredBy("hami.io/node-register-" + commonWord, RegisterFormat.DEVICE_INFO_JSON, ModeField.IGNORED)
                .units(AscendProvider::units, Set.of(HAMI_CORE_NODE))
                .allocatedBy("hami.io/" + commonWord + "-devices-allocated")
                .build();
    }

    static DeviceUnits units(NodeView node) {
        return "true".equals(node.annotations().get(HAMI_CORE_NODE)) ? DeviceUnits.MIB_AND_PERCENT : TEMPLATE_MODE;
    }

    /** The resource names HAMi's default device configuration gives this vendor (count, memory, cores). */
    @Override
    public Set<String> podResources() {
        return RESOURCES;
    }
}
