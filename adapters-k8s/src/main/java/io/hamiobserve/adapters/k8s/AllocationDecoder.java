package io.hamiobserve.adapters.k8s;

import io.hamiobserve.adapters.k8s.Skips.Reason;

import io.hamiobserve.domain.DeviceShare;
import io.hamiobserve.domain.Quantities;
import io.hamiobserve.ports.spi.DeviceVendor.Problem;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Decodes a pod allocation annotation ({@code UUID,Type,MiB,cores:} per device, {@code ;} after
 * each container) into one device list per container position.
 *
 * <p>Positions are the contract: the i-th entry is the i-th container (init containers first),
 * so an entry without devices stays as an empty list and a device that does not decode is
 * dropped without shifting anything. Memory and cores are bounded as
 * {@link Quantities} says; at most {@link InputLimits#MAX_CONTAINERS} positions and
 * {@link InputLimits#MAX_DEVICES_PER_CONTAINER} devices per position are read.
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
        Optional<Problem> tooLong = InputLimits.annotation("allocation annotation", value);
        if (tooLong.isPresent()) {
            problems.add(tooLong.get());
            return new Decoded(containers, problems);
        }
        String[] entries = value.strip().split(";", -1);
        // Every container entry ends with ';', so the text after the last one is not a container.
        int count = entries[entries.length - 1].isBlank() ? entries.length - 1 : entries.length;
        if (count > InputLimits.MAX_CONTAINERS) {
            problems.add(Reason.TOO_MANY_CONTAINERS.problem(count + " container entries; the first "
                    + InputLimits.MAX_CONTAINERS + " are read"));
            count = InputLimits.MAX_CONTAINERS;
        }
        for (int position = 0; position < count; position++) {
            containers.add(decodeContainer(entries[position], position, problems));
        }
        return new Decoded(containers, problems);
    }

    private static List<DeviceShare> decodeContainer(String entry, int position, List<Problem> problems) {
        List<DeviceShare> devices = new ArrayList<>(2);
        int listed = 0;
        for (String device : entry.split(":")) {
            if (device.isBlank()) {
                continue;
            }
            if (++listed > InputLimits.MAX_DEVICES_PER_CONTAINER) {
                problems.add(Reason.TOO_MANY_DEVICES.problem("container " + position + " lists more than "
                        + InputLimits.MAX_DEVICES_PER_CONTAINER + " devices; the rest are not read"));
                break;
            }
            decodeDevice(device, "container " + position, problems).ifPresent(devices::add);
        }
        return devices;
    }

    private static Optional<DeviceShare> decodeDevice(String device, String where, List<Problem> problems) {
        String[] fields = device.split(",", -1);
        if (fields.length != 4) {
            problems.add(Reason.WRONG_FIELD_COUNT.problem(where + ": device has " + fields.length
                    + " fields, expected 4: '" + device + "'"));
            return Optional.empty();
        }
        String uuid = fields[0].strip();
        if (uuid.isEmpty()) {
            problems.add(Reason.MISSING_UUID.problem(where + ": device without UUID"));
            return Optional.empty();
        }
        List<Problem> deviceProblems = new ArrayList<>(2);
        InputLimits.uuid(uuid, where).ifPresent(deviceProblems::add);
        String vendor = fields[1].strip();
        InputLimits.length(vendor, InputLimits.MAX_TEXT_CHARS, "type", where).ifPresent(deviceProblems::add);
        String field = deviceProblems.isEmpty() ? where + " " + uuid : where;
        Numbers.Parsed memory = Numbers.parseNonNegative(fields[2], field + " memory", Quantities.MAX_MEMORY_MIB);
        Numbers.Parsed cores = Numbers.parseNonNegative(fields[3], field + " cores", Quantities.MAX_PERCENT);
        for (Numbers.Parsed parsed : List.of(memory, cores)) {
            if (!parsed.ok()) {
                deviceProblems.add(parsed.problem());
            }
        }
        if (!deviceProblems.isEmpty()) {
            problems.addAll(deviceProblems);
            return Optional.empty();
        }
        return Optional.of(new DeviceShare(uuid, vendor, memory.value(), cores.value()));
    }
}
