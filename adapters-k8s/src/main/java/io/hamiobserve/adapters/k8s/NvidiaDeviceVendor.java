package io.hamiobserve.adapters.k8s;

import io.hamiobserve.domain.RegisteredCard;
import io.hamiobserve.ports.spi.DeviceVendor;

import java.util.List;

/** NVIDIA's HAMi annotations. Placeholder: decoding arrives with the Kubernetes adapter. */
public final class NvidiaDeviceVendor implements DeviceVendor {
    @Override
    public String name() {
        return "nvidia";
    }

    @Override
    public String registerAnnotation() {
        return "hami.io/node-nvidia-register";
    }

    @Override
    public String allocatedAnnotation() {
        return "hami.io/vgpu-devices-allocated";
    }

    @Override
    public Decoded<List<RegisteredCard>> decodeRegistration(String annotationValue) {
        return new Decoded<>(List.of(), List.of(new Problem("not_implemented", "decoding not implemented yet")));
    }
}
