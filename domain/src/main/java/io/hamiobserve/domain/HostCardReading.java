package io.hamiobserve.domain;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;

/**
 * What the driver says about one whole card. A field the driver could not give (not supported,
 * or its call failed) is empty, and only that field's series is left out.
 *
 * @param index                        the driver's device index
 * @param uuid                         the card UUID
 * @param name                         the driver's product name, e.g. {@code NVIDIA H100 80GB HBM3}
 * @param memoryUsedBytes              device memory in use, bytes
 * @param memoryTotalBytes             device memory in all, bytes
 * @param gpuUtilPercent               compute utilisation over the driver's last sample period, 0..100
 * @param memoryControllerUtilPercent  memory-controller utilisation, 0..100
 * @param temperatureCelsius           core temperature
 * @param powerWatts                   power draw
 * @param pciBusId                     PCI bus id, e.g. {@code 00000000:3B:00.0}
 * @param processes                    processes with memory on the card, when the driver could list them
 */
public record HostCardReading(int index, String uuid, String name,
                              OptionalLong memoryUsedBytes, OptionalLong memoryTotalBytes,
                              OptionalDouble gpuUtilPercent, OptionalDouble memoryControllerUtilPercent,
                              OptionalDouble temperatureCelsius, OptionalDouble powerWatts,
                              Optional<String> pciBusId, Optional<List<CardProcess>> processes) {
    public HostCardReading {
        Require.nonNegative(index, "index");
        Require.text(uuid, "uuid");
        name = Objects.requireNonNullElse(name, "");
        Objects.requireNonNull(memoryUsedBytes);
        Objects.requireNonNull(memoryTotalBytes);
        Objects.requireNonNull(gpuUtilPercent);
        Objects.requireNonNull(memoryControllerUtilPercent);
        Objects.requireNonNull(temperatureCelsius);
        Objects.requireNonNull(powerWatts);
        Objects.requireNonNull(pciBusId);
        processes = processes.map(List::copyOf);
    }

    /** HAMi's {@code device_type} on the node endpoint: {@code "NVIDIA-"} + the driver's name. */
    public String deviceType() {
        return "NVIDIA-" + name;
    }

    /**
     * A process holding memory on a card.
     *
     * @param pid           process id in the driver's (host) PID namespace
     * @param usedBytes     memory the driver attributes to it; empty when the driver does not say
     * @param smUtilPercent the SM utilisation the driver sampled for it since the previous reading,
     *                      0..100 (0 when the driver answered with no sample for it: it samples only
     *                      processes that used the SMs); empty when the driver cannot say (not
     *                      supported, MIG mode, a failed call)
     */
    public record CardProcess(long pid, OptionalLong usedBytes, OptionalDouble smUtilPercent) {
        public CardProcess {
            Objects.requireNonNull(usedBytes, "usedBytes");
            Objects.requireNonNull(smUtilPercent, "smUtilPercent");
        }

        /** A process whose utilisation the driver was not asked for. */
        public CardProcess(long pid, OptionalLong usedBytes) {
            this(pid, usedBytes, OptionalDouble.empty());
        }
    }
}
