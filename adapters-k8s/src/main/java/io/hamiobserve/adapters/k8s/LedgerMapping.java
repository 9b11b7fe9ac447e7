package io.hamiobserve.adapters.k8s;

import com.fasterxml.jackson.annotation.JsonIncludeProperties;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerState;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeStatus;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.ResourceQuota;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.ResourceQuotaSpec;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.Map;
import tools.jackson.databind.json.JsonMapper;

/**
 * fabric8's mapping of Kubernetes objects, narrowed to the fields this adapter reads: Jackson
 * mix-ins name, for each model class on the way, the properties that are mapped; every other
 * property is skipped as the input is read (not kept as an unknown property either).
 *
 * <p>Why: Jackson builds a deserializer for every class a mapped property can reach, the first time
 * that class is read. A Pod reaches some 150 model classes (volumes, probes, affinity, security
 * contexts, managed fields), and building them took 200–350 ms of a start's CPU on two cores, on
 * the way to the first ledger sync, for the informer's first list as for a snapshot's first pod
 * (docs/deploy.md, start-up). Skipped subtrees are also cheaper to read than mapped ones, at every
 * list and watch event.
 *
 * <p>What is kept is what {@link LedgerFeed}, {@link PodMapper}, {@link DeviceProviders} and the
 * informers read: identity, creation and deletion times, annotations, labels and controller references; a pod's
 * node, its containers' and init containers' names and resource requests and limits, its phase, its conditions' type,
 * status, reason and message, and its containers' and init containers' states (running, terminated); a node's capacity and allocatable;
 * a quota's hard limits; of a ReplicaSet or Job, its metadata only (spec and status are skipped as
 * they are read, so no pod template is ever built). A model getter not listed here returns {@code null} or an empty list:
 * code that starts reading one adds it here. {@code LedgerMappingTest} fails until it does: it finds
 * every model getter this adapter's classes call (in their bytecode) and checks the property is
 * mapped, and it checks that the ledger fed through this mapping equals the ledger fed through
 * fabric8's full one.
 *
 * <p>Only objects read are narrowed: this adapter never writes to the API server.
 */
final class LedgerMapping {
    private LedgerMapping() {
    }

    @JsonIncludeProperties({"name", "namespace", "uid", "resourceVersion", "creationTimestamp", "deletionTimestamp",
            "annotations", "labels", "ownerReferences"})
    private interface ObjectMetaFields {
    }

    @JsonIncludeProperties({"kind", "name", "uid", "controller"})
    private interface OwnerReferenceFields {
    }

    /** ReplicaSets and Jobs: their metadata only (identity, labels, owner references), never their spec. */
    @JsonIncludeProperties({"apiVersion", "kind", "metadata"})
    private interface MetadataOnlyFields {
    }

    @JsonIncludeProperties({"apiVersion", "kind", "metadata", "status"})
    private interface NodeFields {
    }

    @JsonIncludeProperties({"capacity", "allocatable"})
    private interface NodeStatusFields {
    }

    @JsonIncludeProperties({"nodeName", "containers", "initContainers"})
    private interface PodSpecFields {
    }

    /** A container's name, and its resources for whether an unscheduled pod requests a HAMi resource. */
    @JsonIncludeProperties({"name", "resources"})
    private interface ContainerFields {
    }

    @JsonIncludeProperties({"limits", "requests"})
    private interface ResourceRequirementsFields {
    }

    @JsonIncludeProperties({"phase", "conditions", "containerStatuses", "initContainerStatuses"})
    private interface PodStatusFields {
    }

    /** The PodScheduled condition's status, reason and message: why an unscheduled pod waits. */
    @JsonIncludeProperties({"type", "status", "reason", "message"})
    private interface PodConditionFields {
    }

    @JsonIncludeProperties({"name", "containerID", "state"})
    private interface ContainerStatusFields {
    }

    /** Whether a container runs or has run: what tells a pod that never started (a ghost allocation). */
    @JsonIncludeProperties({"running", "terminated"})
    private interface ContainerStateFields {
    }

    @JsonIncludeProperties({"apiVersion", "kind", "metadata", "spec"})
    private interface ResourceQuotaFields {
    }

    @JsonIncludeProperties({"hard"})
    private interface ResourceQuotaSpecFields {
    }

    /**
     * Each narrowed model class and the mix-in naming its mapped properties; a class not here is
     * mapped whole. {@code LedgerMappingTest} checks that every model getter this adapter calls
     * on a narrowed class reads a property named here.
     */
    static final Map<Class<?>, Class<?>> NARROWED = Map.ofEntries(
            Map.entry(ObjectMeta.class, ObjectMetaFields.class),
            Map.entry(OwnerReference.class, OwnerReferenceFields.class),
            Map.entry(Node.class, NodeFields.class),
            Map.entry(NodeStatus.class, NodeStatusFields.class),
            Map.entry(PodSpec.class, PodSpecFields.class),
            Map.entry(Container.class, ContainerFields.class),
            Map.entry(ResourceRequirements.class, ResourceRequirementsFields.class),
            Map.entry(PodStatus.class, PodStatusFields.class),
            Map.entry(PodCondition.class, PodConditionFields.class),
            Map.entry(ContainerStatus.class, ContainerStatusFields.class),
            Map.entry(ContainerState.class, ContainerStateFields.class),
            Map.entry(ResourceQuota.class, ResourceQuotaFields.class),
            Map.entry(ResourceQuotaSpec.class, ResourceQuotaSpecFields.class),
            Map.entry(ReplicaSet.class, MetadataOnlyFields.class),
            Map.entry(Job.class, MetadataOnlyFields.class));

    /** Built once, on first use (the thread that starts a source); a mapper is safe to share. */
    private static final class Shared {
        static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization(mapper(), true);

        private static JsonMapper mapper() {
            JsonMapper.Builder builder = JsonMapper.builder();
            NARROWED.forEach(builder::addMixIn);
            return builder.build();
        }
    }

    /** The narrowed mapping; fabric8 adds its own modules and settings to the mapper it is given. */
    static KubernetesSerialization serialization() {
        return Shared.SERIALIZATION;
    }

    /** A client for the cluster this process is configured for, reading objects through the narrowed mapping. */
    static KubernetesClient client() {
        return new KubernetesClientBuilder().withKubernetesSerialization(serialization()).build();
    }

    /** A client for the cluster {@code config} names (tests: a mock API server), reading through the narrowed mapping. */
    static KubernetesClient client(Config config) {
        return new KubernetesClientBuilder().withConfig(config).withKubernetesSerialization(serialization()).build();
    }
}
