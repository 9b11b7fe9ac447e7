package io.hamiobserve.adapters.k8s;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.hamiobserve.adapters.k8s.Skips.Kind;
import io.hamiobserve.adapters.k8s.Skips.Reason;
import io.hamiobserve.domain.OwnerObject;
import io.hamiobserve.domain.OwnerRef;
import io.hamiobserve.domain.PodController;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Maps what Kubernetes objects say of their controllers to the domain ({@link OwnerRef},
 * {@link PodController}, {@link OwnerObject}); {@link io.hamiobserve.domain.OwnerChains} resolves
 * them. Only {@code controller: true} references are read, the first of an object (an API server
 * accepts at most one). Text is bounded as names are ({@link PodMapper#MAX_NAME_CHARS}): a reference
 * whose kind, name or UID is longer, or whose kind or name is empty, is skipped and counted
 * ({@code owner_reference/too_long}, {@code owner_reference/missing_identity}), and the chain stops
 * before it: a pod whose only controller reference is unusable is its own workload, an owner whose
 * reference is unusable is the top. A {@code pod-template-hash} label longer than a label value
 * (63 characters) is ignored and counted the same way.
 */
final class Owners {
    static final String TEMPLATE_HASH_LABEL = "pod-template-hash";
    /** Kubernetes label values are at most 63 characters. */
    static final int MAX_LABEL_VALUE_CHARS = 63;

    private Owners() {
    }

    /** What a pod says of its controller; unusable parts counted and left out. */
    static PodController podController(Pod pod, String item, Skips skips) {
        ObjectMeta meta = pod.getMetadata();
        if (meta == null) {
            return PodController.NONE;
        }
        Optional<OwnerRef> ref = controller(meta, item, skips);
        if (ref.isEmpty()) {
            return PodController.NONE;
        }
        Map<String, String> labels = meta.getLabels();
        String hash = labels == null ? null : labels.get(TEMPLATE_HASH_LABEL);
        if (hash != null && hash.length() > MAX_LABEL_VALUE_CHARS) {
            skips.skip(Kind.OWNER_REFERENCE, item, Reason.TOO_LONG, TEMPLATE_HASH_LABEL + " of " + hash.length()
                    + " characters, more than " + MAX_LABEL_VALUE_CHARS);
            hash = null;
        }
        return new PodController(ref, hash == null ? "" : hash);
    }

    /**
     * An intermediate owner's identity and controller, or empty (counted) when it has no name or
     * UID, or a name longer than Kubernetes allows.
     *
     * @param kind the kind of object watched or read ({@code ReplicaSet}, {@code Job})
     */
    static Optional<OwnerObject> owner(HasMetadata object, String kind, Skips skips) {
        ObjectMeta meta = object.getMetadata();
        if (meta == null || isBlank(meta.getName()) || isBlank(meta.getUid())) {
            skips.skip(Kind.OWNER, kind + " " + describe(meta), Reason.MISSING_IDENTITY, kind + " without name or uid");
            return Optional.empty();
        }
        String namespace = isBlank(meta.getNamespace()) ? "default" : meta.getNamespace();
        String item = kind + " " + namespace + "/" + meta.getName();
        for (String text : List.of(namespace, meta.getName(), meta.getUid())) {
            if (text.length() > PodMapper.MAX_NAME_CHARS) {
                skips.skip(Kind.OWNER, item, Reason.TOO_LONG, "name of " + text.length() + " characters, more than "
                        + PodMapper.MAX_NAME_CHARS);
                return Optional.empty();
            }
        }
        return Optional.of(new OwnerObject(kind, namespace, meta.getName(), meta.getUid(),
                controller(meta, item, skips)));
    }

    /** An object's UID, or empty. */
    static Optional<String> uid(HasMetadata object) {
        ObjectMeta meta = object.getMetadata();
        return meta == null || isBlank(meta.getUid()) ? Optional.empty() : Optional.of(meta.getUid());
    }

    /** The object's first {@code controller: true} owner reference, if usable. */
    static Optional<OwnerRef> controller(ObjectMeta meta, String item, Skips skips) {
        List<OwnerReference> references = meta.getOwnerReferences();
        if (references == null) {
            return Optional.empty();
        }
        for (OwnerReference reference : references) {
            if (reference == null || !Boolean.TRUE.equals(reference.getController())) {
                continue;
            }
            String kind = reference.getKind();
            String name = reference.getName();
            String uid = reference.getUid() == null ? "" : reference.getUid().strip();
            if (isBlank(kind) || isBlank(name)) {
                skips.skip(Kind.OWNER_REFERENCE, item, Reason.MISSING_IDENTITY, "controller reference without kind or name");
                return Optional.empty();
            }
            for (String text : List.of(kind, name, uid)) {
                if (text.length() > PodMapper.MAX_NAME_CHARS) {
                    skips.skip(Kind.OWNER_REFERENCE, item, Reason.TOO_LONG, "controller reference of "
                            + text.length() + " characters, more than " + PodMapper.MAX_NAME_CHARS);
                    return Optional.empty();
                }
            }
            return Optional.of(new OwnerRef(canonical(kind), name, uid));
        }
        return Optional.empty();
    }

    /**
     * The kinds controllers usually are, as one shared string each rather than one per reference
     * read (100,000 pods, 100,000 copies of {@code "ReplicaSet"}); any other kind as read.
     */
    static String canonical(String kind) {
        return switch (kind) {
            case "ReplicaSet" -> "ReplicaSet";
            case "Job" -> "Job";
            case "Deployment" -> "Deployment";
            case "StatefulSet" -> "StatefulSet";
            case "DaemonSet" -> "DaemonSet";
            case "CronJob" -> "CronJob";
            case "Rollout" -> "Rollout";
            default -> kind;
        };
    }

    private static String describe(ObjectMeta meta) {
        return meta == null ? "?" : meta.getNamespace() + "/" + meta.getName();
    }

    private static boolean isBlank(String text) {
        return text == null || text.isBlank();
    }
}
