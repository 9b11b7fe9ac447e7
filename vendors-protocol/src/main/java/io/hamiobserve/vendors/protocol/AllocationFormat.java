package io.hamiobserve.vendors.protocol;

import io.hamiobserve.domain.DeviceShare;
import io.hamiobserve.domain.Quantities;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * HAMi's pod allocation value, the same for every vendor ({@code EncodePodSingleDevice}):
 * {@code UUID,Type,mem,cores:} per device, {@code ;} after each container, containers in pod
 * order (init containers first). Read into one device list per container position.
 *
 * <p>Positions are the contract: an entry without devices stays an empty list, and a device
 * that does not decode is dropped without shifting anything. Memory and cores are in the
 * vendor's raw units, bounded as {@link Quantities} says; at most
 * {@link InputLimits#MAX_CONTAINERS} positions and {@link InputLimits#MAX_DEVICES_PER_CONTAINER}
 * devices per position are read.
 */
public final class AllocationFormat {
    private AllocationFormat() {
    }

    /**
     * Per container position, its devices.
     *
     * @param maxIdChars the longest device identity accepted ({@link InputLimits#MAX_UUID_CHARS}
     *                   for plugin-written UUIDs, {@link InputLimits#MAX_SYNTHESISED_ID_CHARS}
     *                   for identities HAMi builds from a node's name)
     */
    public static List<List<DeviceShare>> decode(String value, int maxIdChars, Problems problems) {
        List<List<DeviceShare>> containers = new ArrayList<>();
        if (value == null || value.isBlank() || !InputLimits.annotation(value, "allocation annotation", problems)) {
            return containers;
        }
        String[] entries = value.strip().split(";", -1);
        // Every container entry ends with ';', so the text after the last one is not a container.
        int count = entries[entries.length - 1].isBlank() ? entries.length - 1 : entries.length;
        if (count > InputLimits.MAX_CONTAINERS) {
            problems.add("too_many_containers", count + " container entries; the first "
                    + InputLimits.MAX_CONTAINERS + " are read");
            count = InputLimits.MAX_CONTAINERS;
        }
        for (int position = 0; position < count; position++) {
            containers.add(decodeContainer(entries[position], position, maxIdChars, problems));
        }
        return containers;
    }

    private static List<DeviceShare> decodeContainer(String entry, int position, int maxIdChars, Problems problems) {
        List<DeviceShare> devices = new ArrayList<>(2);
        int listed = 0;
        for (String device : entry.split(":")) {
            if (device.isBlank()) {
                continue;
            }
            if (++listed > InputLimits.MAX_DEVICES_PER_CONTAINER) {
                problems.add("too_many_devices", "container " + position + " lists more than "
                        + InputLimits.MAX_DEVICES_PER_CONTAINER + " devices; the rest are not read");
                break;
            }
            decodeDevice(device, "container " + position, maxIdChars, problems).ifPresent(devices::add);
        }
        return devices;
    }

    private static Optional<DeviceShare> decodeDevice(String device, String where, int maxIdChars, Problems problems) {
        String[] fields = device.split(",", -1);
        if (fields.length != 4) {
            problems.add("wrong_field_count", where + ": device has " + fields.length + " fields, expected 4: '"
                    + device + "'");
            return Optional.empty();
        }
        String uuid = fields[0].strip();
        if (uuid.isEmpty()) {
            problems.add("missing_uuid", where + ": device without UUID");
            return Optional.empty();
        }
        int before = problems.size();
        boolean namedUuid = InputLimits.uuid(uuid, maxIdChars, where, problems);
        String type = fields[1].strip();
        namedUuid &= InputLimits.length(type, InputLimits.MAX_TEXT_CHARS, "type", where, problems);
        String field = namedUuid ? where + " " + uuid : where;
        OptionalLong memory = Numbers.text(fields[2], field + " memory", Quantities.MAX_MEMORY_MIB, problems);
        OptionalLong cores = Numbers.text(fields[3], field + " cores", Quantities.MAX_PERCENT, problems);
        if (problems.size() > before) {
            return Optional.empty();
        }
        return Optional.of(new DeviceShare(uuid, type, memory.orElseThrow(), cores.orElseThrow()));
    }
}
