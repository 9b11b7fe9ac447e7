package io.hamiobserve.vendors.iluvatar;

import io.hamiobserve.vendors.protocol.Backend;
import io.hamiobserve.vendors.protocol.HamiDeviceProvider;
import io.hamiobserve.vendors.protocol.ModeField;
import io.hamiobserve.vendors.protocol.RegisterFormat;

import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Iluvatar CoreX: HAMi runs one backend per entry of its {@code iluvatars} config, keyed by the
 * entry's CommonWord; these are the chips of HAMi's chart. Each registers in the legacy records
 * (7 fields give {@code device_index="0"}); memory MiB ({@code vMem} × 256), cores percent.
 */
public final class IluvatarProvider extends HamiDeviceProvider {
    /** HAMi's chart: {@code iluvatars[].commonWord}. */
    static final List<String> COMMON_WORDS = List.of("MR-V100", "MR-V50", "BI-V150", "BI-V100");
    static final Set<String> RESOURCES = COMMON_WORDS.stream().flatMap(model -> Stream.of("iluvatar.ai/" + model + "-vgpu",
                "iluvatar.ai/" + model + ".vMem", "iluvatar.ai/" + model + ".vCore")).collect(Collectors.toUnmodifiableSet());

    public IluvatarProvider() {
        super("iluvatar", COMMON_WORDS.stream().map(commonWord -> Backend.named(commonWord)
                .registeredBy("hami.io/node-" + commonWord + "-register", RegisterFormat.LEGACY, ModeField.IGNORED)
                .allocatedBy("hami.io/" + commonWord + "-devices-allocated")
                .build()).toList());
    }

    /** The resource names HAMi's default device configuration gives this vendor (count, memory, cores). */
    @Override
    public Set<String> podResources() {
        return RESOURCES;
    }
}
