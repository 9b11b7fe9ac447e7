package io.hamiobserve.adapters.k8s;

import io.hamiobserve.ports.spi.DeviceVendor;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.ServiceLoader;
import java.util.Set;

/** The device vendors found on the module or class path, and the annotation keys they use. */
final class Vendors {
    private final List<DeviceVendor> vendors;
    private final List<String> allocatedKeys;

    Vendors(List<DeviceVendor> vendors) {
        if (vendors.isEmpty()) {
            throw new IllegalArgumentException("no device vendor available");
        }
        List<DeviceVendor> sorted = new ArrayList<>(vendors);
        // A stable order keeps merged allocations and card lists deterministic.
        sorted.sort(Comparator.comparing(DeviceVendor::name));
        this.vendors = List.copyOf(sorted);
        Set<String> keys = new LinkedHashSet<>();
        for (DeviceVendor vendor : this.vendors) {
            keys.add(vendor.allocatedAnnotation());
        }
        this.allocatedKeys = List.copyOf(keys);
    }

    /** Every provider of {@link DeviceVendor} visible to this module, NVIDIA at least; looked up once. */
    static Vendors load() {
        return Loaded.VENDORS;
    }

    /** The providers on the module or class path do not change while the process runs. */
    private static final class Loaded {
        static final Vendors VENDORS = find();
    }

    private static Vendors find() {
        List<DeviceVendor> found = new ArrayList<>();
        ServiceLoader.load(DeviceVendor.class, Vendors.class.getClassLoader()).forEach(found::add);
        if (found.stream().noneMatch(NvidiaDeviceVendor.class::isInstance)) {
            found.add(new NvidiaDeviceVendor());
        }
        return new Vendors(found);
    }

    List<DeviceVendor> all() {
        return vendors;
    }

    /** Distinct pod allocation annotation keys; several vendors may share one. */
    List<String> allocatedKeys() {
        return allocatedKeys;
    }
}
