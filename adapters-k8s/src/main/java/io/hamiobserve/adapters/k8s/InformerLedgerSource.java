package io.hamiobserve.adapters.k8s;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.ResourceQuota;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.hamiobserve.domain.Ledger;
import io.hamiobserve.ports.SchedulerLedgerSource;
import io.hamiobserve.ports.SkipReporter;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The live ledger: fabric8 informers on Nodes, HAMi-placed Pods (label-exists selector on
 * {@code hami.io/vgpu-node}) and ResourceQuotas, each event mapped to the domain at once.
 *
 * <p>The ledger is marked synced when all three informers have listed, and re-marked on every
 * heartbeat while all three watches are up; while a watch is down the mark ages, which is how
 * the app shows a stale ledger. fabric8 relists after a disconnect or 410 Gone and emits deletes
 * for objects that vanished meanwhile; updates are idempotent, so nothing is counted twice.
 */
final class InformerLedgerSource implements SchedulerLedgerSource {
    private static final Logger LOG = Logger.getLogger(InformerLedgerSource.class.getName());
    /** Page size of the initial lists, so that a large cluster is not fetched in one response. */
    static final long LIST_PAGE = 500;

    private final KubernetesClient client;
    private final boolean ownsClient;
    private final Vendors vendors;
    private final Duration heartbeat;
    private final Clock clock;
    private final List<SharedIndexInformer<?>> informers = new ArrayList<>();
    private ScheduledExecutorService scheduler;
    private volatile boolean closed;

    InformerLedgerSource(KubernetesClient client, boolean ownsClient, Vendors vendors, Duration heartbeat, Clock clock) {
        this.client = Objects.requireNonNull(client, "client");
        this.ownsClient = ownsClient;
        this.vendors = vendors;
        this.heartbeat = heartbeat;
        this.clock = clock;
    }

    @Override
    public synchronized void start(Ledger ledger, SkipReporter skips) {
        if (scheduler != null) {
            throw new IllegalStateException("already started");
        }
        LedgerFeed feed = new LedgerFeed(ledger, vendors, new Skips(skips));
        informers.add(inform(client.nodes().withLimit(LIST_PAGE).runnableInformer(0), Node::new,
                handler(feed::putNode, (old, now) -> feed.putNode(now), feed::removeNode)));
        informers.add(inform(client.pods().inAnyNamespace().withLabel(PodMapper.NODE_KEY).withLimit(LIST_PAGE)
                        .runnableInformer(0), Pod::new,
                handler(feed::putPod, feed::replacePod, feed::removePod)));
        informers.add(inform(client.resourceQuotas().inAnyNamespace().withLimit(LIST_PAGE).runnableInformer(0),
                ResourceQuota::new, handler(feed::putQuota, (old, now) -> feed.putQuota(now), feed::removeQuota)));

        scheduler = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "hami-observe-ledger-heartbeat");
            thread.setDaemon(true);
            return thread;
        });
        List<CompletableFuture<Void>> started = new ArrayList<>();
        for (SharedIndexInformer<?> informer : informers) {
            started.add(informer.start().toCompletableFuture());
        }
        CompletableFuture.allOf(started.toArray(CompletableFuture[]::new)).whenComplete((ok, failure) -> {
            if (failure == null) {
                LOG.info("ledger synced from the API server");
                ledger.markSynced(clock.millis());
            } else {
                LOG.log(Level.WARNING, "first list failed; the informers keep retrying", failure);
            }
        });
        long period = Math.max(1, heartbeat.toMillis());
        scheduler.scheduleAtFixedRate(() -> confirm(ledger), period, period, TimeUnit.MILLISECONDS);
    }

    private <T extends HasMetadata> SharedIndexInformer<T> inform(SharedIndexInformer<T> informer,
                                                                 java.util.function.Supplier<T> blank,
                                                                 ResourceEventHandler<T> handler) {
        informer.itemStore(new LeanStore<>(blank));
        informer.addEventHandler(handler);
        informer.exceptionHandler((started, failure) -> {
            // Keep retrying whatever the failure: the last ledger is served meanwhile, aging.
            LOG.log(Level.WARNING, "watch of " + informer.getApiTypeClass().getSimpleName()
                    + " failed; retrying: " + failure);
            return !closed;
        });
        return informer;
    }

    private static <T> ResourceEventHandler<T> handler(Consumer<T> added, BiConsumer<T, T> updated,
                                                       Consumer<T> deleted) {
        return new ResourceEventHandler<>() {
            @Override
            public void onAdd(T object) {
                added.accept(object);
            }

            @Override
            public void onUpdate(T previous, T current) {
                if (previous == current) {
                    return; // a resync replays the lean copy: nothing new to apply
                }
                updated.accept(previous, current);
            }

            @Override
            public void onDelete(T object, boolean finalStateUnknown) {
                deleted.accept(object);
            }
        };
    }

    /** Whether every informer has listed once and is watching now. */
    boolean healthy() {
        List<SharedIndexInformer<?>> current;
        synchronized (this) {
            current = List.copyOf(informers);
        }
        return !current.isEmpty() && current.stream().allMatch(i -> i.hasSynced() && i.isWatching());
    }

    private void confirm(Ledger ledger) {
        if (!closed && healthy()) {
            ledger.markSynced(clock.millis());
        }
    }

    @Override
    public synchronized void close() {
        closed = true;
        if (scheduler != null) {
            scheduler.shutdownNow();
        }
        informers.forEach(SharedIndexInformer::stop);
        if (ownsClient) {
            client.close();
        }
    }
}
