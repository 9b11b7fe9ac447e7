package io.hamiobserve.adapters.k8s;

import io.hamiobserve.adapters.k8s.Skips.Kind;

import io.hamiobserve.adapters.k8s.Skips.Reason;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.hamiobserve.domain.ContainerShares;
import io.hamiobserve.domain.DeviceShare;
import io.hamiobserve.domain.MigInstance;
import io.hamiobserve.domain.PodPhase;
import io.hamiobserve.domain.PodPlacement;
import io.hamiobserve.domain.PodRef;
import io.hamiobserve.ports.spi.DeviceVendor.Problem;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Maps a fabric8 {@link Pod} to the domain's {@link PodPlacement}, so that no Kubernetes object
 * outlives the event that delivered it. Work is proportional to the pod.
 */
final class PodMapper {
    static final String NODE_KEY = "hami.io/vgpu-node";
    static final String MIG_KEY = "hami.io/vgpu-mig-allocations";

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final Vendors vendors;

    PodMapper(Vendors vendors) {
        this.vendors = vendors;
    }

    /** The pod's identity, or empty when the object lacks namespace, name or UID. */
    static Optional<PodRef> ref(Pod pod) {
        ObjectMeta meta = pod.getMetadata();
        if (meta == null || isBlank(meta.getName()) || isBlank(meta.getUid())) {
            return Optional.empty();
        }
        String namespace = isBlank(meta.getNamespace()) ? "default" : meta.getNamespace();
        return Optional.of(new PodRef(namespace, meta.getName(), meta.getUid()));
    }

    /** The node HAMi placed the pod on: the annotation, else the label of the same key. */
    static Optional<String> placedNode(Pod pod) {
        ObjectMeta meta = pod.getMetadata();
        if (meta == null) {
            return Optional.empty();
        }
        String node = value(meta.getAnnotations(), NODE_KEY);
        if (isBlank(node)) {
            node = value(meta.getLabels(), NODE_KEY);
        }
        return isBlank(node) ? Optional.empty() : Optional.of(node.strip());
    }

    /** Container names in allocation order: init containers first, then app containers. */
    static List<String> containerNames(Pod pod) {
        List<String> names = new ArrayList<>();
        PodSpec spec = pod.getSpec();
        if (spec != null) {
            for (Container container : nullToEmpty(spec.getInitContainers())) {
                names.add(container.getName() == null ? "" : container.getName());
            }
            for (Container container : nullToEmpty(spec.getContainers())) {
                names.add(container.getName() == null ? "" : container.getName());
            }
        }
        return names;
    }

    /**
     * The pod's placement when it carries {@code hami.io/vgpu-node}; empty for a pod HAMi has not
     * placed (or one without identity). Undecodable parts are reported and left out.
     */
    Optional<PodPlacement> toPlacement(Pod pod, Skips skips) {
        Optional<PodRef> ref = ref(pod);
        Optional<String> node = placedNode(pod);
        if (node.isEmpty()) {
            return Optional.empty();
        }
        if (ref.isEmpty()) {
            skips.skip(Kind.POD_ANNOTATION, describe(pod), Reason.MISSING_IDENTITY, "pod without name or uid");
            return Optional.empty();
        }
        List<String> names = containerNames(pod);
        Optional<Problem> badName = names(ref.get(), node.get(), names);
        if (badName.isPresent()) {
            skips.skip(Kind.POD_ANNOTATION, describe(pod), badName.get());
            return Optional.empty();
        }
        String item = ref.get().namespace() + "/" + ref.get().name();
        Map<String, String> annotations = pod.getMetadata().getAnnotations();
        PodSpec spec = pod.getSpec();
        int initCount = spec == null ? 0 : nullToEmpty(spec.getInitContainers()).size();

        List<List<DeviceShare>> merged = new ArrayList<>();
        for (String key : vendors.allocatedKeys()) {
            String value = value(annotations, key);
            if (value == null) {
                continue;
            }
            AllocationDecoder.Decoded decoded = AllocationDecoder.decode(value);
            for (Problem problem : decoded.problems()) {
                skips.skip(Kind.POD_ANNOTATION, item, new Problem(problem.reason(), key + ": " + problem.detail()));
            }
            List<List<DeviceShare>> entries = decoded.containers();
            if (!names.isEmpty() && entries.size() > names.size()) {
                skips.skip(Kind.POD_ANNOTATION, item, Reason.TOO_MANY_CONTAINERS, key + " lists " + entries.size()
                        + " containers, the pod has " + names.size());
                entries = entries.subList(0, names.size());
            }
            for (int i = 0; i < entries.size(); i++) {
                while (merged.size() <= i) {
                    merged.add(new ArrayList<>(2));
                }
                merged.get(i).addAll(entries.get(i));
            }
        }

        int containerCount = names.isEmpty() ? merged.size() : names.size();
        List<ContainerShares> containers = new ArrayList<>(containerCount);
        for (int i = 0; i < containerCount; i++) {
            String name = i < names.size() ? names.get(i) : "";
            List<DeviceShare> devices = i < merged.size() ? merged.get(i) : List.of();
            containers.add(new ContainerShares(i, name, i < initCount, devices));
        }
        PodStatus status = pod.getStatus();
        PodPhase phase = PodPhase.parse(status == null ? null : status.getPhase());
        List<MigInstance> mig = migInstances(value(annotations, MIG_KEY), item, skips);
        return Optional.of(new PodPlacement(ref.get(), node.get(), phase, initContainersFinished(pod, initCount),
                containers, mig));
    }

    /**
     * A problem when a name that becomes a label is longer than Kubernetes allows: an API server
     * never stores one, a crafted snapshot may.
     */
    private static Optional<Problem> names(PodRef ref, String node, List<String> containers) {
        List<String> names = new ArrayList<>(List.of(ref.namespace(), ref.name(), ref.uid(), node));
        names.addAll(containers);
        for (String name : names) {
            Optional<Problem> problem = InputLimits.length(name, InputLimits.MAX_NAME_CHARS, "name", "pod");
            if (problem.isPresent()) {
                return problem;
            }
        }
        return Optional.empty();
    }

    static boolean initContainersFinished(Pod pod, int initCount) {
        if (initCount == 0) {
            return true;
        }
        PodStatus status = pod.getStatus();
        List<ContainerStatus> statuses = status == null ? List.of() : nullToEmpty(status.getInitContainerStatuses());
        if (statuses.size() < initCount) {
            return false;
        }
        for (ContainerStatus initStatus : statuses) {
            if (initStatus.getState() == null || initStatus.getState().getTerminated() == null) {
                return false;
            }
        }
        return true;
    }

    private static List<MigInstance> migInstances(String value, String item, Skips skips) {
        if (isBlank(value)) {
            return List.of();
        }
        Optional<Problem> tooLong = InputLimits.annotation(MIG_KEY, value);
        if (tooLong.isPresent()) {
            skips.skip(Kind.POD_ANNOTATION, item, tooLong.get());
            return List.of();
        }
        JsonNode root;
        try {
            root = JSON.readTree(value);
        } catch (JacksonException e) {
            skips.skip(Kind.POD_ANNOTATION, item, Reason.BAD_JSON, MIG_KEY + ": " + e.getOriginalMessage());
            return List.of();
        }
        if (root == null || !root.isArray()) {
            skips.skip(Kind.POD_ANNOTATION, item, Reason.BAD_JSON, MIG_KEY + " is not a JSON array");
            return List.of();
        }
        List<MigInstance> instances = new ArrayList<>();
        int position = 0;
        for (JsonNode entry : root) {
            if (position == InputLimits.MAX_MIG_INSTANCES) {
                skips.skip(Kind.POD_ANNOTATION, item, Reason.TOO_MANY_ENTRIES, MIG_KEY + " lists " + root.size()
                        + " instances; the first " + InputLimits.MAX_MIG_INSTANCES + " are read");
                break;
            }
            List<Problem> problems = new ArrayList<>(1);
            Optional<MigInstance> instance = migInstance(entry, MIG_KEY + " #" + position++, problems);
            instance.ifPresent(instances::add);
            problems.forEach(problem -> skips.skip(Kind.POD_ANNOTATION, item, problem));
        }
        return instances;
    }

    private static Optional<MigInstance> migInstance(JsonNode entry, String where, List<Problem> problems) {
        if (!entry.isObject()) {
            problems.add(Reason.BAD_MIG_ALLOCATION.problem(where + " is not an object"));
            return Optional.empty();
        }
        JsonNode placement = entry.path("placement");
        long start;
        long size;
        if (placement.isObject()) {
            start = smallInt(placement, "start", where, problems);
            size = smallInt(placement, "size", where, problems);
        } else {
            start = smallInt(entry, "placement", where, problems);
            size = 0;
        }
        String gpu = text(entry, "gpuUUID", where, problems);
        String migUuid = text(entry, "migUUID", where, problems);
        String profile = text(entry, "profile", where, problems);
        long containerIndex = smallInt(entry, "containerIndex", where, problems);
        long deviceIndex = smallInt(entry, "deviceIndex", where, problems);
        long gpuInstance = smallInt(entry, "gpuInstanceID", where, problems);
        long computeInstance = smallInt(entry, "computeInstanceID", where, problems);
        if (gpu.isEmpty() && problems.isEmpty()) {
            problems.add(Reason.BAD_MIG_ALLOCATION.problem(where + " without gpuUUID"));
        }
        if (!gpu.isEmpty()) {
            InputLimits.uuid(gpu, where).ifPresent(problems::add);
        }
        if (!migUuid.isEmpty()) {
            InputLimits.uuid(migUuid, where).ifPresent(problems::add);
        }
        InputLimits.length(profile, InputLimits.MAX_TEXT_CHARS, "profile", where).ifPresent(problems::add);
        if (!problems.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new MigInstance((int) containerIndex, (int) deviceIndex, gpu, profile, (int) start,
                (int) size, migUuid, (int) gpuInstance, (int) computeInstance));
    }

    private static long smallInt(JsonNode object, String field, String where, List<Problem> problems) {
        Numbers.Parsed parsed = Numbers.fromJson(object.get(field), where + " " + field, Integer.MAX_VALUE);
        if (!parsed.ok()) {
            problems.add(parsed.problem());
        }
        return parsed.value();
    }

    private static String text(JsonNode object, String field, String where, List<Problem> problems) {
        JsonNode node = object.get(field);
        if (node == null || node.isNull()) {
            return "";
        }
        if (!node.isString()) {
            problems.add(Reason.BAD_MIG_ALLOCATION.problem(where + ": " + field + " is not a string"));
            return "";
        }
        return node.stringValue().strip();
    }

    static String describe(Pod pod) {
        ObjectMeta meta = pod.getMetadata();
        return meta == null ? "?" : meta.getNamespace() + "/" + meta.getName();
    }

    private static String value(Map<String, String> map, String key) {
        return map == null ? null : map.get(key);
    }

    private static boolean isBlank(String text) {
        return text == null || text.isBlank();
    }

    private static <T> List<T> nullToEmpty(List<T> list) {
        return list == null ? List.of() : list;
    }
}
