package io.hamiobserve.vendors.vastai;

import io.hamiobserve.vendors.protocol.Backend;
import io.hamiobserve.vendors.protocol.Cards;
import io.hamiobserve.vendors.protocol.HamiDeviceProvider;
import io.hamiobserve.vendors.protocol.ModeField;
import io.hamiobserve.vendors.protocol.RegisterFormat;

import java.util.List;
import java.util.Set;

/**
 * Vastai ({@code Vastai}): HAMi's JSON; HAMi sets every card's cores to 100 whatever the plugin
 * wrote. The allocation keys are spelt with a capital V ({@code hami.io/Vastai-devices-allocated});
 * real allocations carry memory 0 and cores 0 (whole cards). MiB and percent.
 */
public final class VastaiProvider extends HamiDeviceProvider {
    static final Set<String> RESOURCES = Set.of("vastaitech.com/va");

    public VastaiProvider() {
        super("vastai", List.of(Backend.named("Vastai")
                .registeredBy("hami.io/node-va-register", RegisterFormat.DEVICE_INFO_JSON, ModeField.IGNORED)
                .adjusted(card -> Cards.withCores(card, 100))
                .allocatedBy("hami.io/Vastai-devices-allocated")
                .build()));
    }

    /** The resource names HAMi's default device configuration gives this vendor (count, memory, cores). */
    @Override
    public Set<String> podResources() {
        return RESOURCES;
    }
}
