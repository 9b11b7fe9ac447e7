package io.hamiobserve.adapters.k8s;

import io.hamiobserve.adapters.k8s.Skips.Kind;

import io.hamiobserve.adapters.k8s.Skips.Reason;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceQuota;
import io.hamiobserve.domain.Ledger;
import io.hamiobserve.domain.OwnerChains;
import io.hamiobserve.domain.PendingPod;
import io.hamiobserve.domain.PodController;
import io.hamiobserve.domain.PodRef;
import io.hamiobserve.domain.PodPlacement;
import io.hamiobserve.domain.Quantities;
import io.hamiobserve.domain.QuotaLimit;
import io.hamiobserve.domain.QuotaResource;
import io.hamiobserve.domain.VendorCard;
import io.hamiobserve.ports.SkipReporter;
import io.hamiobserve.ports.spi.DeviceProvider;
import io.hamiobserve.ports.spi.NodeDevices;
import io.hamiobserve.ports.spi.NodeView;
import io.hamiobserve.ports.spi.Problem;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Applies Kubernetes objects to the {@link Ledger}: the one mapping shared by the live informers
 * and the offline snapshot. Every call is idempotent (pods are keyed by UID), so re-applying an
 * object after a relist changes nothing. No call throws for bad data: what does not decode is
 * reported and the rest is applied.
 */
final class LedgerFeed {
    private static final Logger LOG = Logger.getLogger(LedgerFeed.class.getName());
    /** Kubernetes quantities are short ({@code 40Gi}, {@code 1e3}); a long one is crafted. */
    static final int MAX_QUANTITY_CHARS = 64;
    private static final BigDecimal MAX_QUOTA = BigDecimal.valueOf(Quantities.MAX_QUOTA);

    private final Ledger ledger;
    private final DeviceProviders providers;
    private final PodMapper pods;
    private final PendingPods pending;
    private final Skips skips;

    LedgerFeed(Ledger ledger, DeviceProviders providers, Skips skips) {
        this.ledger = ledger;
        this.providers = providers;
        this.pods = new PodMapper(providers);
        this.pending = new PendingPods(providers);
        this.skips = skips;
    }

    void putNode(Node node) {
        String name = name(node.getMetadata());
        if (name == null) {
            skips.skip(Kind.NODE_ANNOTATION, "?", Reason.MISSING_IDENTITY, "node without name");
            return;
        }
        guarded("node " + name, () -> ledger(name, node));
    }

    private void ledger(String name, Node node) {
        NodeView view = providers.view(name, node);
        List<VendorCard> cards = new ArrayList<>();
        boolean present = false;
        for (DeviceProvider provider : view == null ? List.<DeviceProvider>of() : providers.registering(view)) {
            NodeDevices devices = provider.decodeNode(view);
            for (Problem problem : devices.problems()) {
                skips.skip(DeviceProviders.nodeKind(provider), name, problem);
            }
            present |= devices.present();
            cards.addAll(devices.cards());
        }
        if (present) {
            ledger.putVendorCards(name, cards);
            for (Ledger.DuplicateRegistration duplicate : ledger.duplicateRegistrations(name)) {
                skips.skip(Kind.NODE_ANNOTATION, duplicate.ignored(), Reason.DUPLICATE_UUID, "card " + duplicate.uuid()
                        + " is registered by " + duplicate.keptBy() + " too, which keeps it (first node by name)");
            }
        } else {
            // A node without accelerators, or one whose device plugins withdrew their registration.
            ledger.removeNode(name);
        }
    }

    void removeNode(Node node) {
        String name = name(node.getMetadata());
        if (name != null) {
            ledger.removeNode(name);
        }
    }

    void putPod(Pod pod) {
        guarded("pod " + PodMapper.describe(pod), () -> {
            Optional<PodPlacement> placement = pods.toPlacement(pod, skips);
            if (placement.isPresent()) {
                PodRef ref = placement.get().pod();
                PodController controller = Owners.podController(pod, ref.namespace() + "/" + ref.name(), skips);
                report(ledger.putPod(placement.get().withController(controller)));
            } else {
                uid(pod).ifPresent(ledger::removePod);
            }
            pending(pod);
        });
    }

    /**
     * Records or forgets the pod as unmet demand ({@link PendingPods}); the only part of a pod the
     * unscheduled pods' informer applies: their placements are the HAMi-placed pods' informer's.
     */
    void putUnscheduled(Pod pod) {
        guarded("pod " + PodMapper.describe(pod), () -> pending(pod));
    }

    /** An unscheduled pod replaced under the same name has a new UID. */
    void replaceUnscheduled(Pod previous, Pod current) {
        Optional<String> oldUid = uid(previous);
        if (oldUid.isPresent() && !oldUid.equals(uid(current))) {
            ledger.removePending(oldUid.get());
        }
        putUnscheduled(current);
    }

    /** A pod that left the unscheduled pods (bound to a node, or deleted). */
    void removeUnscheduled(Pod pod) {
        uid(pod).ifPresent(ledger::removePending);
    }

    private void pending(Pod pod) {
        Optional<PendingPod> demand = pending.toPending(pod, skips);
        if (demand.isPresent()) {
            if (!ledger.putPending(demand.get())) {
                skips.skip(Kind.PENDING_POD, PodMapper.describe(pod), Reason.TOO_MANY_PENDING, "more than "
                        + Ledger.MAX_PENDING_PODS + " pending pods");
            }
        } else {
            uid(pod).ifPresent(ledger::removePending);
        }
    }

    /** A pod replaced under the same name (deleted and re-created while unobserved) has a new UID. */
    void replacePod(Pod previous, Pod current) {
        Optional<String> oldUid = uid(previous);
        if (oldUid.isPresent() && !oldUid.equals(uid(current))) {
            ledger.removePod(oldUid.get());
        }
        putPod(current);
    }

    void removePod(Pod pod) {
        uid(pod).ifPresent(ledger::removePod);
    }

    /**
     * Records an intermediate owner (a ReplicaSet or Job: what the source caches), which
     * re-resolves the top controller of the pods it owns.
     *
     * @param kind the object's kind, as watched or read
     */
    void putOwner(HasMetadata owner, String kind) {
        guarded("owner " + kind, () -> Owners.owner(owner, kind, skips).ifPresent(object ->
                report(ledger.putOwner(object))));
    }

    /** An owner replaced under the same name (deleted and re-created while unobserved) has a new UID. */
    void replaceOwner(HasMetadata previous, HasMetadata current, String kind) {
        Optional<String> oldUid = Owners.uid(previous);
        if (oldUid.isPresent() && !oldUid.equals(Owners.uid(current))) {
            report(ledger.removeOwner(oldUid.get()));
        }
        putOwner(current, kind);
    }

    void removeOwner(HasMetadata owner) {
        Owners.uid(owner).ifPresent(uid -> report(ledger.removeOwner(uid)));
    }

    /** Counts each owner chain the ledger cut short, under the domain's reason. */
    private void report(List<OwnerChains.Finding> findings) {
        for (OwnerChains.Finding finding : findings) {
            skips.skip(Kind.OWNER_REFERENCE, finding.pod().namespace() + "/" + finding.pod().name(),
                    Reason.valueOf(finding.problem().name()), "owner chain cut short at "
                            + finding.stoppedAt().kind() + " " + finding.stoppedAt().name());
        }
    }

    void putQuota(ResourceQuota quota) {
        ObjectMeta meta = quota.getMetadata();
        String name = name(meta);
        if (name == null) {
            skips.skip(Kind.QUOTA, "?", Reason.MISSING_IDENTITY, "quota without name");
            return;
        }
        String namespace = namespace(meta);
        String item = namespace + "/" + name;
        guarded("quota " + item, () -> {
            Map<String, Quantity> hard = quota.getSpec() == null ? null : quota.getSpec().getHard();
            List<QuotaLimit> limits = new ArrayList<>(2);
            for (QuotaResource resource : QuotaResource.values()) {
                Quantity quantity = hard == null ? null : hard.get(resource.hardLimitKey());
                if (quantity != null) {
                    limit(quantity, resource, item).ifPresent(value ->
                            limits.add(new QuotaLimit(namespace, name, resource, value)));
                }
            }
            ledger.putQuota(namespace, name, limits);
        });
    }

    void removeQuota(ResourceQuota quota) {
        String name = name(quota.getMetadata());
        if (name != null) {
            ledger.removeQuota(namespace(quota.getMetadata()), name);
        }
    }

    /**
     * A hard limit in {@code [0, Quantities.MAX_QUOTA]}, rounded up to a whole unit as Kubernetes
     * rounds integer resources. Compared before it is rounded: rounding {@code 1e1000000} would
     * build a number of a million digits, and {@code 7e-777777779} one past BigInteger's range.
     */
    private Optional<Long> limit(Quantity quantity, QuotaResource resource, String item) {
        String text = String.valueOf(quantity.getAmount()) + String.valueOf(quantity.getFormat());
        if (text.length() > MAX_QUANTITY_CHARS) {
            skips.skip(Kind.QUOTA, item, Reason.BAD_QUANTITY, resource.hardLimitKey() + " of " + text.length()
                    + " characters");
            return Optional.empty();
        }
        BigDecimal amount;
        try {
            amount = quantity.getNumericalAmount();
        } catch (RuntimeException bad) {
            skips.skip(Kind.QUOTA, item, Reason.BAD_QUANTITY, resource.hardLimitKey() + " = " + quantity);
            return Optional.empty();
        }
        if (amount.signum() < 0) {
            skips.skip(Kind.QUOTA, item, Reason.NEGATIVE_NUMBER, resource.hardLimitKey() + " = " + quantity);
            return Optional.empty();
        }
        if (amount.compareTo(MAX_QUOTA) > 0) {
            skips.skip(Kind.QUOTA, item, Reason.NUMBER_OVERFLOW, resource.hardLimitKey() + " = " + quantity + " exceeds "
                    + Quantities.MAX_QUOTA);
            return Optional.empty();
        }
        // A fraction of a unit rounds up to one; rounding it with setScale could need 10^(its scale).
        if (amount.signum() > 0 && amount.compareTo(BigDecimal.ONE) < 0) {
            return Optional.of(1L);
        }
        return Optional.of(amount.setScale(0, RoundingMode.CEILING).longValueExact());
    }

    // A bug in mapping one object must cost that object only, never the informer thread.
    private void guarded(String what, Runnable action) {
        try {
            action.run();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "could not apply " + SkipReporter.loggable(what), e);
            Kind kind = what.startsWith("node") ? Kind.NODE_ANNOTATION
                    : what.startsWith("quota") ? Kind.QUOTA
                    : what.startsWith("owner") ? Kind.OWNER : Kind.POD_ANNOTATION;
            skips.skip(kind, what, Reason.INVALID_OBJECT, String.valueOf(e.getMessage()));
        }
    }

    private static Optional<String> uid(Pod pod) {
        ObjectMeta meta = pod.getMetadata();
        return meta == null || meta.getUid() == null || meta.getUid().isBlank()
                ? Optional.empty() : Optional.of(meta.getUid());
    }

    private static String name(ObjectMeta meta) {
        return meta == null || meta.getName() == null || meta.getName().isBlank() ? null : meta.getName();
    }

    private static String namespace(ObjectMeta meta) {
        return meta.getNamespace() == null || meta.getNamespace().isBlank() ? "default" : meta.getNamespace();
    }
}
