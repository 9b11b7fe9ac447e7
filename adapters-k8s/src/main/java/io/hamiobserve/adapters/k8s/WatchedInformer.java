package io.hamiobserve.adapters.k8s;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;

import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * One informer kept watching, for as long as its owner runs: the ledger has one per kind (nodes,
 * pods, quotas), the node's pod directory one for its node's pods.
 *
 * <ul>
 * <li>Its store is a {@link LeanStore}, which outlives the informer: only each object's identity
 *     is kept, the full object goes to the owner's handler and is dropped.</li>
 * <li>A watch that was up and is found down at {@link #DOWN_CHECKS_BEFORE_RELIST} checks in a row
 *     is restarted with a full relist, versions forgotten ({@link #relist}): fabric8 retries a
 *     watch whose resume is refused with HTTP 410 Gone from the same resourceVersion for ever,
 *     and a restarted API server may accept an old version without saying so. The relist
 *     re-applies every object (idempotent, keyed by UID) and deletes what vanished meanwhile.
 *     Checks count only once the informer has delivered its list: a list still in progress (the
 *     first, or a relist's on a large cluster) is not an outage.</li>
 * <li>fabric8 replays the lean copies as adds to a handler added to an informer restarted on the
 *     store, and as updates on resync: neither reaches the owner's handler, which sees each real
 *     change once.</li>
 * </ul>
 * The owner decides when a check runs ({@link #checkWatch}), from a {@link Heartbeat}.
 */
final class WatchedInformer<T extends HasMetadata> {
    private static final Logger LOG = Logger.getLogger(WatchedInformer.class.getName());
    /** Checks a watch may be down before the informer is restarted with a full relist. */
    static final int DOWN_CHECKS_BEFORE_RELIST = 2;

    private final String what;
    private final Supplier<SharedIndexInformer<T>> factory;
    private final LeanStore<T> store;
    private final ResourceEventHandler<T> handler;
    private final Consumer<Throwable> failed;
    private volatile SharedIndexInformer<T> informer;
    private volatile boolean listed;
    /** Whether the informer started last has delivered its list: from then on, a watch down counts. */
    private volatile boolean listedSinceStart;
    private volatile boolean stopped;
    private int downChecks;

    /**
     * @param what    what is watched, for the log ("pods", "pods on gpu-node-1")
     * @param factory a new informer on the watched objects, not started
     * @param blank   a new empty object of the watched kind, for the lean copies
     * @param events  the owner's handler: sees every add, real update, delete and list
     * @param failed  told of every failed list or watch (fabric8 retries it)
     */
    WatchedInformer(String what, Supplier<SharedIndexInformer<T>> factory, Supplier<T> blank,
                    ResourceEventHandler<T> events, Consumer<Throwable> failed) {
        this.what = what;
        this.factory = factory;
        this.store = new LeanStore<>(blank);
        this.failed = failed;
        this.handler = new ResourceEventHandler<>() {
            @Override
            public void onAdd(T object) {
                if (!store.isLeanCopy(object)) { // the relist that follows a restart brings the object
                    events.onAdd(object);
                }
            }

            @Override
            public void onUpdate(T previous, T current) {
                if (previous != current) { // a resync replays the lean copy: nothing new
                    events.onUpdate(previous, current);
                }
            }

            @Override
            public void onDelete(T object, boolean finalStateUnknown) {
                events.onDelete(object, finalStateUnknown);
            }

            @Override
            public void onList(String resourceVersion, boolean empty) {
                // Delivered after the list's own events: the owner holds the whole list now.
                listed = true;
                listedSinceStart = true;
                events.onList(resourceVersion, empty);
            }
        };
    }

    synchronized void start() {
        listedSinceStart = false;
        downChecks = 0;
        SharedIndexInformer<T> created = factory.get();
        created.itemStore(store);
        created.addEventHandler(handler);
        created.exceptionHandler((started, failure) -> {
            failed.accept(failure);
            return !stopped;
        });
        informer = created;
        created.start();
    }

    /** Whether the first list has been delivered; stays true across relists. */
    boolean listed() {
        return listed;
    }

    /** Listed, synced and watching now. */
    boolean healthy() {
        SharedIndexInformer<T> current = informer;
        return listed && current != null && current.hasSynced() && watching(current);
    }

    /** Counts a check with the watch down; the second in a row relists. */
    synchronized void checkWatch() {
        if (stopped) {
            return;
        }
        SharedIndexInformer<T> current = informer;
        if (current != null && watching(current)) {
            downChecks = 0;
        } else if (listedSinceStart && ++downChecks == DOWN_CHECKS_BEFORE_RELIST) {
            LOG.warning("watch of " + what + " is down; relisting");
            relist();
        }
    }

    /** Restarts the informer on its store with every version forgotten: a full list follows. */
    synchronized void relist() {
        LOG.info("relisting " + what);
        informer.stop();
        store.forgetVersions();
        if (!stopped) {
            start();
        }
    }

    synchronized void stop() {
        stopped = true;
        if (informer != null) {
            informer.stop();
        }
    }

    // fabric8 8.0 throws NullPointerException from isWatching while an informer stops.
    private static boolean watching(SharedIndexInformer<?> informer) {
        try {
            return informer.isWatching();
        } catch (RuntimeException stopping) {
            return false;
        }
    }
}
