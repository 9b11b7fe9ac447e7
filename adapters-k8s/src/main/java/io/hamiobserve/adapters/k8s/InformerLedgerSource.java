package io.hamiobserve.adapters.k8s;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.ResourceQuota;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.hamiobserve.domain.Ledger;
import io.hamiobserve.ports.SchedulerLedgerSource;
import io.hamiobserve.ports.SkipReporter;

import java.time.Clock;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The live ledger: fabric8 informers on Nodes, HAMi-placed Pods (label-exists selector on
 * {@code hami.io/vgpu-node}), unscheduled Pods (field selector {@code spec.nodeName=}: unmet demand,
 * {@link PendingPods}), ResourceQuotas, and the pods' intermediate owners (ReplicaSets and Jobs,
 * metadata only), each event mapped to the domain at once.
 *
 * <p>The ledger is marked synced once all six informers have delivered their first list to
 * the handlers, and re-marked on every heartbeat while all six watches are up; while a watch
 * is down the mark ages, which is how the app shows a stale ledger.
 *
 * <p>At every heartbeat the API server's reachability is probed; while it answers, each informer
 * checks its watch ({@link WatchedInformer#checkWatch}: two checks down, and it relists). After the
 * API server has been unreachable for two heartbeats, every informer relists once it answers again:
 * the relist re-applies every object (idempotent, keyed by UID) and emits deletes for objects that
 * vanished meanwhile, even where a restarted API server accepted the old resourceVersion without
 * saying 410 Gone.
 */
final class InformerLedgerSource implements SchedulerLedgerSource {
    private static final Logger LOG = Logger.getLogger(InformerLedgerSource.class.getName());
    /** Page size of the lists, so that a large cluster is not fetched in one response. */
    static final long LIST_PAGE = 500;
    static final String REPLICA_SET = "ReplicaSet";
    static final String JOB = "Job";
    /** The field an unscheduled pod has empty. */
    static final String UNSCHEDULED = "spec.nodeName";

    private final KubernetesClient client;
    private final boolean ownsClient;
    private final DeviceProviders providers;
    private final Heartbeat heartbeat;
    private final Clock clock;
    private List<WatchedInformer<?>> watched = List.of();
    private ExecutorService prober;
    private volatile boolean closed;
    private int unreachableBeats;
    private CompletableFuture<Void> probe;
    private volatile Failure lastFailure;
    /** For failure messages: where the API server is, read once (the exception handler must not throw). */
    private final String masterUrl;

    InformerLedgerSource(KubernetesClient client, boolean ownsClient, DeviceProviders providers, Heartbeat heartbeat,
                         Clock clock) {
        this.client = Objects.requireNonNull(client, "client");
        this.masterUrl = String.valueOf(client.getConfiguration().getMasterUrl());
        this.ownsClient = ownsClient;
        this.providers = providers;
        this.heartbeat = heartbeat;
        this.clock = clock;
    }

    @Override
    public synchronized void start(Ledger ledger, SkipReporter skips) {
        if (prober != null) {
            throw new IllegalStateException("already started");
        }
        LedgerFeed feed = new LedgerFeed(ledger, providers, new Skips(skips));
        Runnable listed = () -> {
            if (watched.stream().allMatch(WatchedInformer::listed)) {
                ledger.markSynced(clock.millis());
            }
        };
        watched = List.of(
                watch("nodes", () -> client.nodes().withLimit(LIST_PAGE).runnableInformer(0), Node::new,
                        feed::putNode, (old, now) -> feed.putNode(now), feed::removeNode, listed),
                watch("pods", () -> client.pods().inAnyNamespace().withLabel(PodMapper.NODE_KEY)
                        .withLimit(LIST_PAGE).runnableInformer(0), Pod::new,
                        feed::putPod, feed::replacePod, feed::removePod, listed),
                // Unmet demand: pods with no node yet (HAMi's label is set only once it places one),
                // kept as PendingPods when they request a HAMi resource; the store keeps identities only.
                watch("pods-unscheduled", () -> client.pods().inAnyNamespace().withField(UNSCHEDULED, "")
                        .withLimit(LIST_PAGE).runnableInformer(0), Pod::new,
                        feed::putUnscheduled, feed::replaceUnscheduled, feed::removeUnscheduled, listed),
                watch("resourcequotas", () -> client.resourceQuotas().inAnyNamespace().withLimit(LIST_PAGE)
                        .runnableInformer(0), ResourceQuota::new,
                        feed::putQuota, (old, now) -> feed.putQuota(now), feed::removeQuota, listed),
                // Intermediate owners, for each pod's top controller: read through the narrowed
                // mapping (metadata only) and kept as the domain's OwnerObjects.
                watch("replicasets", () -> client.apps().replicaSets().inAnyNamespace().withLimit(LIST_PAGE)
                        .runnableInformer(0), ReplicaSet::new,
                        rs -> feed.putOwner(rs, REPLICA_SET), (old, now) -> feed.replaceOwner(old, now, REPLICA_SET),
                        feed::removeOwner, listed),
                watch("jobs", () -> client.batch().v1().jobs().inAnyNamespace().withLimit(LIST_PAGE)
                        .runnableInformer(0), Job::new,
                        job -> feed.putOwner(job, JOB), (old, now) -> feed.replaceOwner(old, now, JOB),
                        feed::removeOwner, listed));
        prober = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("hami-observe-api-probe").factory());
        watched.forEach(WatchedInformer::start);
        heartbeat.start(() -> beat(ledger));
    }

    private <T extends HasMetadata> WatchedInformer<T> watch(String kind, Supplier<SharedIndexInformer<T>> factory,
                                                             Supplier<T> blank, Consumer<T> added,
                                                             BiConsumer<T, T> updated, Consumer<T> deleted,
                                                             Runnable listed) {
        return new WatchedInformer<>(kind, factory, blank, new ResourceEventHandler<>() {
            @Override
            public void onAdd(T object) {
                added.accept(object);
            }

            @Override
            public void onUpdate(T previous, T current) {
                updated.accept(previous, current);
            }

            @Override
            public void onDelete(T object, boolean finalStateUnknown) {
                deleted.accept(object);
            }

            @Override
            public void onList(String resourceVersion, boolean empty) {
                listed.run();
            }
        }, failure -> failed(kind, failure));
    }

    /** Whether every informer has delivered its list and is watching now. */
    boolean healthy() {
        List<WatchedInformer<?>> current = watched;
        return !current.isEmpty() && current.stream().allMatch(WatchedInformer::healthy);
    }

    /**
     * Whether the API server answered a one-node list from its watch cache within one heartbeat.
     * fabric8 hides outages behind watch reconnects (the watch reports itself up while it resumes
     * from a version a restarted server may not know) and behind request retries, so
     * reachability is checked directly, on its own thread, and a probe still pending counts as
     * unreachable.
     */
    private boolean reachable() {
        CompletableFuture<Void> current = probe;
        if (current == null || current.isDone()) {
            current = CompletableFuture.runAsync(() -> client.nodes()
                    .list(new ListOptionsBuilder().withLimit(1L).withResourceVersion("0").build()), prober);
            probe = current;
        }
        try {
            current.get(Math.max(1, heartbeat.period().toMillis()), TimeUnit.MILLISECONDS);
            return true;
        } catch (TimeoutException | ExecutionException | RuntimeException unreachable) {
            return false;
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private void beat(Ledger ledger) {
        try {
            if (closed) {
                return;
            }
            if (!reachable()) {
                if (++unreachableBeats == WatchedInformer.DOWN_CHECKS_BEFORE_RELIST) {
                    LOG.warning("API server unreachable; serving the last known ledger");
                }
                return;
            }
            if (unreachableBeats >= WatchedInformer.DOWN_CHECKS_BEFORE_RELIST) {
                LOG.info("API server reachable again; relisting");
                watched.forEach(WatchedInformer::relist);
            }
            unreachableBeats = 0;
            // Only while the API server answers: a watch down for two beats then is stuck, not
            // waiting out an outage.
            for (WatchedInformer<?> informer : watched) {
                try {
                    informer.checkWatch();
                } catch (RuntimeException e) {
                    LOG.log(Level.WARNING, "watch check failed", e);
                }
            }
            if (healthy()) {
                lastFailure = null;
                ledger.markSynced(clock.millis());
            }
        } catch (RuntimeException e) {
            // The heartbeat must survive anything, or the ledger would silently stop aging correctly.
            LOG.log(Level.WARNING, "ledger heartbeat failed", e);
        }
    }

    /** The last failure of a watch or list while the ledger is not healthy: a live source keeps retrying. */
    @Override
    public Optional<Failure> failure() {
        Failure failure = lastFailure;
        return failure == null || healthy() ? Optional.empty() : Optional.of(failure);
    }

    private void failed(String kind, Throwable failure) {
        boolean first = lastFailure == null;
        lastFailure = new Failure("cannot list or watch " + kind + " at " + masterUrl + ": " + rootCause(failure),
                true);
        // fabric8 retries for ever; one line per outage is enough at WARNING.
        LOG.log(first ? Level.WARNING : Level.FINE, "watch of {0} failed; retrying: {1}",
                new Object[] {kind, failure});
    }

    private static String rootCause(Throwable failure) {
        Throwable cause = failure;
        while (cause.getCause() != null && cause.getCause() != cause) {
            cause = cause.getCause();
        }
        return cause.getClass().getSimpleName() + (cause.getMessage() == null ? "" : " " + cause.getMessage());
    }

    @Override
    public synchronized void close() {
        closed = true;
        heartbeat.close();
        if (prober != null) {
            prober.shutdownNow();
        }
        watched.forEach(WatchedInformer::stop);
        if (ownsClient) {
            client.close();
        }
    }
}
