package io.hamiobserve.vendors.biren;

import io.hamiobserve.vendors.protocol.Backend;
import io.hamiobserve.vendors.protocol.Cards;
import io.hamiobserve.vendors.protocol.HamiDeviceProvider;
import io.hamiobserve.vendors.protocol.ModeField;
import io.hamiobserve.vendors.protocol.RegisterFormat;

import java.util.List;
import java.util.Set;

/**
 * Biren ({@code Biren}): HAMi's JSON; HAMi sets every card's cores to 100 whatever the plugin
 * wrote. The allocation keys are spelt with a capital B ({@code hami.io/Biren-devices-allocated});
 * real allocations carry memory 0 and cores 0 (whole cards). MiB and percent.
 */
public final class BirenProvider extends HamiDeviceProvider {
    static final Set<String> RESOURCES = Set.of("birentech.com/gpu");

    public BirenProvider() {
        super("biren", List.of(Backend.named("Biren")
                .registeredBy("hami.io/node-biren-register", RegisterFormat.DEVICE_INFO_JSON, ModeField.IGNORED)
                .adjusted(card -> Cards.withCores(card, 100))
                .allocatedBy("hami.io/Biren-devices-allocated")
                .build()));
    }

    /** The resource names HAMi's default device configuration gives this vendor (count, memory, cores). */
    @Override
    public Set<String> podResources() {
        return RESOURCES;
    }
}
