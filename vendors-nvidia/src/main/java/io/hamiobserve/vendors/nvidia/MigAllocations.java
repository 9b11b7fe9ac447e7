package io.hamiobserve.vendors.nvidia;

import io.hamiobserve.domain.MigInstance;
import io.hamiobserve.vendors.protocol.InputLimits;
import io.hamiobserve.vendors.protocol.Json;
import io.hamiobserve.vendors.protocol.Problems;
import tools.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The pod annotation {@code hami.io/vgpu-mig-allocations}: a JSON array of the MIG instances the
 * device plugin realised, one per container device ({@code containerIndex}, {@code deviceIndex},
 * {@code gpuUUID}, {@code profile}, {@code placement} as {@code {start,size}} or, in older
 * plugins, a bare start, {@code migUUID} once created, {@code gpuInstanceID},
 * {@code computeInstanceID}). An entry that does not decode is skipped; at most
 * {@link InputLimits#MAX_ENTRIES} are read.
 */
final class MigAllocations {
    private MigAllocations() {
    }

    static List<MigInstance> decode(String value, Problems problems) {
        List<MigInstance> instances = new ArrayList<>();
        Optional<JsonNode> parsed = Json.annotation(value, NvidiaProvider.MIG_ALLOCATIONS, problems);
        if (parsed.isEmpty()) {
            return instances;
        }
        JsonNode root = parsed.get();
        if (!root.isArray()) {
            problems.add("bad_json", NvidiaProvider.MIG_ALLOCATIONS + " is not a JSON array");
            return instances;
        }
        int position = 0;
        for (JsonNode entry : root) {
            if (position == InputLimits.MAX_ENTRIES) {
                problems.add("too_many_entries", NvidiaProvider.MIG_ALLOCATIONS + " lists " + root.size()
                        + " instances; the first " + InputLimits.MAX_ENTRIES + " are read");
                break;
            }
            instance(entry, NvidiaProvider.MIG_ALLOCATIONS + " #" + position++, problems).ifPresent(instances::add);
        }
        return instances;
    }

    private static Optional<MigInstance> instance(JsonNode entry, String where, Problems problems) {
        if (!entry.isObject()) {
            problems.add("bad_mig_allocation", where + " is not an object");
            return Optional.empty();
        }
        int before = problems.size();
        JsonNode placement = Json.field(entry, "placement");
        long start;
        long size;
        if (placement != null && placement.isObject()) {
            start = Json.number(placement, "start", where, Integer.MAX_VALUE, problems);
            size = Json.number(placement, "size", where, Integer.MAX_VALUE, problems);
        } else {
            start = Json.number(entry, "placement", where, Integer.MAX_VALUE, problems);
            size = 0;
        }
        String gpu = text(entry, "gpuUUID", where, problems);
        String migUuid = text(entry, "migUUID", where, problems);
        String profile = text(entry, "profile", where, problems);
        long containerIndex = Json.number(entry, "containerIndex", where, Integer.MAX_VALUE, problems);
        long deviceIndex = Json.number(entry, "deviceIndex", where, Integer.MAX_VALUE, problems);
        long gpuInstance = Json.number(entry, "gpuInstanceID", where, Integer.MAX_VALUE, problems);
        long computeInstance = Json.number(entry, "computeInstanceID", where, Integer.MAX_VALUE, problems);
        if (gpu.isEmpty() && problems.size() == before) {
            problems.add("bad_mig_allocation", where + " without gpuUUID");
        }
        if (!gpu.isEmpty()) {
            InputLimits.uuid(gpu, InputLimits.MAX_UUID_CHARS, where, problems);
        }
        if (!migUuid.isEmpty()) {
            InputLimits.uuid(migUuid, InputLimits.MAX_UUID_CHARS, where, problems);
        }
        InputLimits.length(profile, InputLimits.MAX_TEXT_CHARS, "profile", where, problems);
        if (problems.size() > before) {
            return Optional.empty();
        }
        return Optional.of(new MigInstance((int) containerIndex, (int) deviceIndex, gpu, profile, (int) start,
                (int) size, migUuid, (int) gpuInstance, (int) computeInstance));
    }

    // Not Json.text: a MIG entry's wrong-typed field has its own reason, as it always had.
    private static String text(JsonNode entry, String field, String where, Problems problems) {
        JsonNode node = Json.field(entry, field);
        if (node == null || node.isNull()) {
            return "";
        }
        if (!node.isString()) {
            problems.add("bad_mig_allocation", where + ": " + field + " is not a string");
            return "";
        }
        return node.stringValue().strip();
    }
}
