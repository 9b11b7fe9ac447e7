package io.hamiobserve.adapters.k8s;

import io.hamiobserve.domain.DeviceShare;
import io.hamiobserve.ports.spi.DeviceVendor.Problem;

import java.util.ArrayList;
import java.util.List;

/**
 * Decodes a pod allocation annotation ({@code UUID,Type,MiB,cores:} per device, {@code ;} after
 * each container) into one device list per container position.
 *
 * <p>Positions are the contract: the i-th entry is the i-th container (init containers first),
 * so an entry without devices stays as an empty list and a device that does not decode is
 * dropped without shifting anything.
 */
final class AllocationDecoder {
    private AllocationDecoder() {
    }

    /** Per container position, its devices; and what was skipped. */
    record Decoded(List<List<DeviceShare>> containers, List<Problem> problems) {
    }

    static Decoded decode(String value) {
        List<List<DeviceShare>> containers = new ArrayList<>();
        List<Problem> problems = new ArrayList<>();
        if (value == null || value.isBlank()) {
            return new Decoded(containers, problems);
        }
        String[] entries = value.strip().split(";", -1);
        // Every container entry ends with ';', so the text after the last one is not a container.
        int count = entries[entries.length - 1].isBlank() ? entries.length - 1 : entries.length;
        for (int position = 0; position < count; position++) {
            containers.add(decodeContainer(entries[position], position, problems));
        }
        return new Decoded(containers, problems);
    }

    private static List<DeviceShare> decodeContainer(String entry, int position, List<Problem> problems) {
        List<DeviceShare> devices = new ArrayList<>(2);
        for (String device : entry.split(":")) {
            if (device.isBlank()) {
                continue;
            }
            String[] fields = device.split(",", -1);
            if (fields.length != 4) {
                problems.add(new Problem("wrong_field_count", "container " + position + ": device has "
                        + fields.length + " fields, expected 4: '" + device + "'"));
                continue;
            }
            String uuid = fields[0].strip();
            if (uuid.isEmpty()) {
                problems.add(new Problem("missing_uuid", "container " + position + ": device without UUID"));
                continue;
            }
            Numbers.Parsed memory = Numbers.parseNonNegative(fields[2], "container " + position + " " + uuid
                    + " memory", Long.MAX_VALUE);
            Numbers.Parsed cores = Numbers.parseNonNegative(fields[3], "container " + position + " " + uuid
                    + " cores", Long.MAX_VALUE);
            if (!memory.ok() || !cores.ok()) {
                if (!memory.ok()) {
                    problems.add(memory.problem());
                }
                if (!cores.ok()) {
                    problems.add(cores.problem());
                }
                continue;
            }
            devices.add(new DeviceShare(uuid, fields[1].strip(), memory.value(), cores.value()));
        }
        return devices;
    }
}
