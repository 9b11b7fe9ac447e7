package io.hamiobserve.adapters.k8s;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.hamiobserve.adapters.k8s.Skips.Kind;
import io.hamiobserve.adapters.k8s.Skips.Reason;
import io.hamiobserve.domain.PendingPod;
import io.hamiobserve.domain.PendingReason;
import io.hamiobserve.domain.PodPhase;
import io.hamiobserve.domain.PodRef;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Maps an unscheduled fabric8 {@link Pod} to the domain's {@link PendingPod}: unmet demand is a
 * pod with no node ({@code spec.nodeName} empty) that HAMi has not placed either (no
 * {@code hami.io/vgpu-node}: a pod HAMi chose a node for is an allocation being bound, which the
 * ledger counts), not finished, and that requests one of the providers' resources
 * ({@link io.hamiobserve.ports.spi.DeviceProvider#podResources()}) in a container's or init
 * container's limits or requests. Of it only the identity, the creation time and the
 * {@code PodScheduled} condition's mapped reason are kept; the message is read once and dropped.
 */
final class PendingPods {
    private final Set<String> resources;

    PendingPods(DeviceProviders providers) {
        this.resources = providers.podResources();
    }

    /**
     * The pod as unmet demand; empty when it is not (placed, finished, requesting no HAMi
     * resource) or cannot be counted (reported: no identity, a name too long, no readable creation time).
     */
    Optional<PendingPod> toPending(Pod pod, Skips skips) {
        PodSpec spec = pod.getSpec();
        if (spec == null || !isBlank(spec.getNodeName()) || PodMapper.placedNode(pod).isPresent()
                || finished(pod) || !requestsHamiResource(spec)) {
            return Optional.empty();
        }
        Optional<PodRef> ref = PodMapper.ref(pod);
        if (ref.isEmpty()) {
            skips.skip(Kind.PENDING_POD, PodMapper.describe(pod), Reason.MISSING_IDENTITY, "pod without name or uid");
            return Optional.empty();
        }
        PodRef identity = ref.get();
        for (String name : List.of(identity.namespace(), identity.name(), identity.uid())) {
            if (name.length() > PodMapper.MAX_NAME_CHARS) {
                skips.skip(Kind.PENDING_POD, PodMapper.describe(pod), Reason.TOO_LONG, "pod: name of "
                        + name.length() + " characters, more than " + PodMapper.MAX_NAME_CHARS);
                return Optional.empty();
            }
        }
        Optional<Long> created = created(pod.getMetadata());
        if (created.isEmpty()) {
            skips.skip(Kind.PENDING_POD, PodMapper.describe(pod), Reason.BAD_TIMESTAMP,
                    "pending pod without a readable creationTimestamp");
            return Optional.empty();
        }
        return Optional.of(new PendingPod(identity, created.get(), reason(pod.getStatus())));
    }

    private static boolean finished(Pod pod) {
        PodStatus status = pod.getStatus();
        PodPhase phase = PodPhase.parse(status == null ? null : status.getPhase());
        return phase == PodPhase.SUCCEEDED || phase == PodPhase.FAILED;
    }

    private boolean requestsHamiResource(PodSpec spec) {
        return requests(spec.getContainers()) || requests(spec.getInitContainers());
    }

    private boolean requests(List<Container> containers) {
        if (containers == null) {
            return false;
        }
        for (Container container : containers) {
            ResourceRequirements requirements = container == null ? null : container.getResources();
            if (requirements != null && (names(requirements.getLimits()) || names(requirements.getRequests()))) {
                return true;
            }
        }
        return false;
    }

    private boolean names(Map<String, Quantity> quantities) {
        if (quantities == null) {
            return false;
        }
        for (String name : quantities.keySet()) {
            if (resources.contains(name)) {
                return true;
            }
        }
        return false;
    }

    /** The creation time in epoch milliseconds, when it is present and parses. */
    private static Optional<Long> created(ObjectMeta meta) {
        return ObjectTimes.rfc3339(meta == null ? null : meta.getCreationTimestamp());
    }

    /** The reason of the pod's {@code PodScheduled} condition (the first one, as the API server keeps one). */
    static PendingReason reason(PodStatus status) {
        List<PodCondition> conditions = status == null ? null : status.getConditions();
        if (conditions != null) {
            for (PodCondition condition : conditions) {
                if (condition != null && "PodScheduled".equals(condition.getType())) {
                    return PendingReason.of(condition.getStatus(), condition.getReason(), condition.getMessage());
                }
            }
        }
        return PendingReason.of(null, null, null);
    }

    private static boolean isBlank(String text) {
        return text == null || text.isBlank();
    }
}
