package io.hamiobserve.vendors.hygon;

import io.hamiobserve.vendors.protocol.Backend;
import io.hamiobserve.vendors.protocol.HamiDeviceProvider;
import io.hamiobserve.vendors.protocol.ModeField;
import io.hamiobserve.vendors.protocol.RegisterFormat;

import java.util.List;
import java.util.Set;

/**
 * Hygon DCU ({@code DCU}): the legacy records, which the DCU plugin writes with 7 fields, so every
 * card reports {@code device_index="0"} as in HAMi; the type is the driver's name for the card,
 * while allocations name the request type {@code DCU}. MiB and percent.
 */
public final class HygonProvider extends HamiDeviceProvider {
    static final Set<String> RESOURCES = Set.of("hygon.com/dcunum", "hygon.com/dcumem", "hygon.com/dcucores");

    public HygonProvider() {
        super("hygon", List.of(Backend.named("DCU")
                .registeredBy("hami.io/node-dcu-register", RegisterFormat.LEGACY, ModeField.IGNORED)
                .allocatedBy("hami.io/dcu-devices-allocated")
                .build()));
    }

    /** The resource names HAMi's default device configuration gives this vendor (count, memory, cores). */
    @Override
    public Set<String> podResources() {
        return RESOURCES;
    }
}
