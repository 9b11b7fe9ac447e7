package io.hamiobserve.domain;

import static io.hamiobserve.domain.Fixtures.quota;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Incremental updates must be exact: whatever sequence of events led to a state, the view equals
 * the view of a ledger fed only that state.
 */
class LedgerPropertyTest {
    private static final String[] NODES = {"node-a", "node-b", "node-c", "node-d"};
    private static final String[] NAMESPACES = {"ml", "web", "batch"};
    private static final int CARDS = 8;
    private static final int PODS = 24;

    /** One change to the ledger, and the same change to the expected final state. */
    private record Event(String description, Consumer<Ledger> apply) {
    }

    /** The state the events lead to, kept as plain maps. */
    private static final class FinalState {
        final Map<String, List<RegisteredCard>> nodes = new TreeMap<>();
        final Map<String, PodPlacement> pods = new TreeMap<>();
        final Map<String, List<QuotaLimit>> quotas = new TreeMap<>();

        Ledger freshLedger() {
            Ledger ledger = new Ledger();
            nodes.forEach(ledger::putNode);
            pods.values().forEach(ledger::putPod);
            quotas.forEach((key, limits) -> ledger.putQuota(key.split("/")[0], key.split("/")[1], limits));
            return ledger;
        }
    }

    private static final class Generator {
        private final Random random;
        final FinalState state = new FinalState();

        Generator(long seed) {
            random = new Random(seed);
        }

        List<Event> events(int count) {
            List<Event> events = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                events.add(next());
            }
            return events;
        }

        Event next() {
            int kind = random.nextInt(100);
            if (kind < 15) {
                String node = NODES[random.nextInt(NODES.length)];
                List<RegisteredCard> cards = randomCards();
                state.nodes.put(node, cards);
                return new Event("putNode " + node + " " + cards, ledger -> ledger.putNode(node, cards));
            }
            if (kind < 20) {
                String node = NODES[random.nextInt(NODES.length)];
                state.nodes.remove(node);
                return new Event("removeNode " + node, ledger -> ledger.removeNode(node));
            }
            if (kind < 70) {
                PodPlacement placement = randomPlacement();
                state.pods.put(placement.pod().uid(), placement);
                return new Event("putPod " + placement, ledger -> ledger.putPod(placement));
            }
            if (kind < 90) {
                String uid = "uid-" + random.nextInt(PODS);
                state.pods.remove(uid);
                return new Event("removePod " + uid, ledger -> ledger.removePod(uid));
            }
            String namespace = NAMESPACES[random.nextInt(NAMESPACES.length)];
            String object = "quota-" + random.nextInt(2);
            List<QuotaLimit> limits = new ArrayList<>();
            for (QuotaResource resource : QuotaResource.values()) {
                if (random.nextBoolean()) {
                    limits.add(quota(namespace, object, resource, random.nextInt(50_000)));
                }
            }
            String key = namespace + "/" + object;
            if (limits.isEmpty()) {
                state.quotas.remove(key);
            } else {
                state.quotas.put(key, List.copyOf(limits));
            }
            return new Event("putQuota " + key + " " + limits, ledger -> ledger.putQuota(namespace, object, limits));
        }

        /** Cards drawn from one pool, so a card can appear under two nodes (moved, node renamed). */
        private List<RegisteredCard> randomCards() {
            List<RegisteredCard> cards = new ArrayList<>();
            int first = random.nextInt(CARDS);
            int count = random.nextInt(4);
            for (int i = 0; i < count; i++) {
                int n = (first + i) % CARDS;
                CardMode mode = random.nextBoolean() ? CardMode.MIG : CardMode.HAMI_CORE;
                long memory = 40960L * (1 + random.nextInt(2));
                cards.add(new RegisteredCard("GPU-" + n, i, 10, memory, 100, "NVIDIA A100", 0, mode, true));
            }
            return cards;
        }

        private PodPlacement randomPlacement() {
            int n = random.nextInt(PODS);
            PodRef pod = new PodRef(NAMESPACES[n % NAMESPACES.length], "pod-" + n, "uid-" + n);
            PodPhase phase = PodPhase.values()[random.nextInt(PodPhase.values().length)];
            List<ContainerShares> containers = new ArrayList<>();
            int count = random.nextInt(4);
            int inits = random.nextInt(count + 1);
            List<MigInstance> migs = new ArrayList<>();
            for (int c = 0; c < count; c++) {
                List<DeviceShare> shares = new ArrayList<>();
                int devices = random.nextInt(3);
                for (int d = 0; d < devices; d++) {
                    // One card more than any node registers: a share on a card nobody owns.
                    String uuid = "GPU-" + random.nextInt(CARDS + 1);
                    shares.add(new DeviceShare(uuid, "NVIDIA", 256L * random.nextInt(40), 5L * random.nextInt(20)));
                    if (random.nextBoolean()) {
                        migs.add(new MigInstance(c, d, uuid, "1g.10gb", d, 1,
                                random.nextBoolean() ? "MIG-" + n + "-" + c + "-" + d : "", 1, 0));
                    }
                }
                containers.add(new ContainerShares(c, "c" + c, c < inits, shares));
            }
            return new PodPlacement(pod, NODES[random.nextInt(NODES.length)], phase, random.nextBoolean(),
                    containers, migs);
        }
    }

    /** The view without its freshness, which records history (version) rather than state. */
    static AllocationView state(AllocationView view) {
        return new AllocationView(view.cards(), view.pods(), view.owners(), view.quotas(), view.migInstances(),
                view.unregisteredCardShares(), new AllocationView.LedgerFreshness(false, 0, 0));
    }

    @Test
    void incrementalUpdatesEqualAFreshLedgerFedTheFinalState() {
        int withAllocatedCards = 0;
        int withUnregisteredShares = 0;
        int withMigInstances = 0;
        int withQuotaLimits = 0;
        for (long seed = 1; seed <= 20; seed++) {
            Generator generator = new Generator(seed);
            Ledger ledger = new Ledger();
            for (Event event : generator.events(400)) {
                event.apply().accept(ledger);
            }
            AllocationView expected = state(generator.state.freshLedger().view());
            assertEquals(expected, state(ledger.view()), "seed " + seed);
            withAllocatedCards += expected.cards().stream().anyMatch(card -> card.sharedContainers() > 0) ? 1 : 0;
            withUnregisteredShares += expected.unregisteredCardShares().isEmpty() ? 0 : 1;
            withMigInstances += expected.migInstances().isEmpty() ? 0 : 1;
            withQuotaLimits += expected.quotas().stream().anyMatch(q -> q.limit().isPresent()) ? 1 : 0;
        }
        // The comparison proves something only if the final states exercise every part of the view.
        List<Integer> coverage = List.of(withAllocatedCards, withUnregisteredShares, withMigInstances, withQuotaLimits);
        assertTrue(coverage.stream().allMatch(seeds -> seeds >= 5), "seeds covering each part: " + coverage);
    }

    @Test
    void everyIntermediateStateMatchesAFreshLedger() {
        Generator generator = new Generator(42);
        Ledger ledger = new Ledger();
        for (int i = 0; i < 600; i++) {
            Event event = generator.next();
            event.apply().accept(ledger);
            assertEquals(state(generator.state.freshLedger().view()), state(ledger.view()),
                    () -> "after " + event.description());
        }
    }

    @Test
    void readersSeeConsistentViewsWhileOneWriterApplies() throws Exception {
        Generator generator = new Generator(7);
        List<Event> events = generator.events(20_000);
        Ledger ledger = new Ledger();
        AtomicBoolean done = new AtomicBoolean();
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        int readers = 3;
        CountDownLatch finished = new CountDownLatch(readers);
        int[] viewsRead = new int[readers];
        for (int r = 0; r < readers; r++) {
            int reader = r;
            Thread thread = new Thread(() -> {
                try {
                    long lastVersion = -1;
                    while (!done.get()) {
                        AllocationView view = ledger.view();
                        long version = view.freshness().version();
                        if (version < lastVersion) {
                            throw new AssertionError("version went back from " + lastVersion + " to " + version);
                        }
                        lastVersion = version;
                        for (AllocationView.CardAllocation card : view.cards()) {
                            if (card.allocatedMemoryMib() < 0 || card.allocatedCores() < 0
                                    || card.sharedContainers() < 0) {
                                throw new AssertionError("negative totals " + card);
                            }
                        }
                        viewsRead[reader]++;
                    }
                } catch (Throwable t) {
                    failures.add(t);
                } finally {
                    finished.countDown();
                }
            }, "ledger-reader-" + r);
            thread.setDaemon(true);
            thread.start();
        }
        for (Event event : events) {
            event.apply().accept(ledger);
        }
        done.set(true);
        assertTrue(finished.await(30, TimeUnit.SECONDS), "readers did not stop");

        assertEquals(List.of(), List.copyOf(failures));
        assertEquals(state(generator.state.freshLedger().view()), state(ledger.view()));
        for (int count : viewsRead) {
            assertTrue(count > 0, "every reader read at least one view");
        }
    }
}
