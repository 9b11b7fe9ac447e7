package io.hamiobserve.adapters.cachefile;

import io.hamiobserve.adapters.cachefile.layout.CacheLayout;

import io.hamiobserve.adapters.cachefile.Skips.Kind;
import io.hamiobserve.adapters.cachefile.Skips.Reason;
import io.hamiobserve.domain.DeviceUsage;
import io.hamiobserve.domain.Quantities;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Sums one container's cache files into per-device usage. Only live slots (running or suspended)
 * count; devices whose UUID is not usable are left out.
 *
 * <p>Several files in one directory (one per process group, seen in the field) are merged by
 * device position, in the order they are added (the source adds them sorted by file name): the
 * first file with a usable UUID at a position names that device; later files with the same UUID
 * there add their memory, SM utilisation and processes; a later file with another UUID at that
 * position is skipped for that device ({@code uuid_conflict}). Limits take the largest value, since
 * every process group of a container is held to the same limits; the last kernel time is the
 * container's: the latest over all its files, on every device (the file records it per process
 * group, not per device).
 *
 * <p>Every figure was bounded by the reader; sums over processes and files saturate
 * ({@link Quantities#add}) instead of wrapping: tenants write these numbers.
 */
final class ContainerAccounting {
    private final Position[] positions = new Position[CacheLayout.MAX_DEVICES];
    private long lastKernel;

    /** Adds one file's content; problems found while merging go to {@code problems}. */
    void add(CacheFileContent content, Consumer<CacheFileContent.Problem> problems) {
        lastKernel = Math.max(lastKernel, content.lastKernelTime());
        for (CacheFileContent.Device device : content.devices()) {
            if (!device.usable()) {
                continue;
            }
            int d = device.index();
            Position position = positions[d];
            if (position == null) {
                position = new Position(device.uuid());
                positions[d] = position;
            } else if (!position.uuid.equals(device.uuid())) {
                problems.accept(new CacheFileContent.Problem(Kind.DEVICE, Reason.UUID_CONFLICT,
                        "device " + d + ": " + device.uuid() + " where another file of the container has "
                                + position.uuid));
                continue;
            }
            position.limit = Math.max(position.limit, device.limitBytes());
            position.smLimit = Math.max(position.smLimit, device.smLimitPercent());
            for (CacheFileContent.Slot slot : content.slots()) {
                if (!slot.live()) {
                    continue;
                }
                position.used = add(position.used, slot.totalBytes()[d]);
                position.context = add(position.context, slot.contextBytes()[d]);
                position.module = add(position.module, slot.moduleBytes()[d]);
                position.buffer = add(position.buffer, slot.dataBytes()[d]);
                position.sm = add(position.sm, slot.smUtil()[d]);
                if (slot.uses(d)) {
                    position.processes++;
                }
            }
        }
    }

    /** The merged devices, by position. */
    List<DeviceUsage> devices() {
        List<DeviceUsage> devices = new ArrayList<>();
        for (int d = 0; d < positions.length; d++) {
            Position p = positions[d];
            if (p != null) {
                devices.add(new DeviceUsage(d, p.uuid, p.used, p.context, p.module, p.buffer, p.limit, p.smLimit,
                        p.sm, p.processes, lastKernel));
            }
        }
        return devices;
    }

    /** One file's devices, as if it were the container's only file. */
    static List<DeviceUsage> of(CacheFileContent content) {
        ContainerAccounting accounting = new ContainerAccounting();
        accounting.add(content, problem -> { });
        return accounting.devices();
    }

    private static long add(long a, long b) {
        return Quantities.add(a, b);
    }

    private static final class Position {
        final String uuid;
        long used;
        long context;
        long module;
        long buffer;
        long limit;
        long smLimit;
        long sm;
        int processes;

        Position(String uuid) {
            this.uuid = uuid;
        }
    }
}
