package io.hamiobserve.domain;

import java.util.Objects;

/**
 * A MIG instance realised for one container, from the pod's {@code hami.io/vgpu-mig-allocations}.
 *
 * @param containerIndex     container position (as in {@link ContainerShares#index()})
 * @param deviceIndex        position of the device within the container
 * @param gpuUuid            the parent card
 * @param profile            MIG profile, e.g. {@code 1g.10gb}
 * @param placementStart     first slice of the placement
 * @param placementSize      number of slices
 * @param migUuid            the instance's UUID, empty until the device plugin created it
 * @param gpuInstanceId      GPU instance id
 * @param computeInstanceId  compute instance id
 */
public record MigInstance(int containerIndex, int deviceIndex, String gpuUuid, String profile,
                          int placementStart, int placementSize, String migUuid,
                          int gpuInstanceId, int computeInstanceId) {
    public MigInstance {
        Require.text(gpuUuid, "gpuUuid");
        profile = Objects.requireNonNullElse(profile, "");
        migUuid = Objects.requireNonNullElse(migUuid, "");
    }

    /** An instance is ready once the device plugin has created it and recorded its UUID. */
    public boolean ready() {
        return !migUuid.isEmpty();
    }
}
