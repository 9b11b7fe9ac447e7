package io.hamiobserve.adapters.k8s;

import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.api.model.ListMetaBuilder;
import io.fabric8.kubernetes.api.model.NodeListBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodListBuilder;
import io.fabric8.kubernetes.api.model.ResourceQuotaListBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetListBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.JobListBuilder;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.hamiobserve.domain.AllocationView;
import io.hamiobserve.domain.Ledger;
import io.hamiobserve.domain.NodePod;
import io.hamiobserve.ports.NodePodDirectory;
import io.hamiobserve.ports.SchedulerLedgerSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import static io.hamiobserve.adapters.k8s.Fixtures.await;
import static io.hamiobserve.adapters.k8s.Fixtures.card;
import static io.hamiobserve.adapters.k8s.Fixtures.node;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The live sources when the API server answers a pod watch with 410 Gone ("too old resource
 * version"), on fabric8's mock API server in expectations mode: every request the informers make
 * is scripted, so the first pod list, the 410 and the relist that follows are exactly those a
 * real API server sends after its watch cache has moved past the informer's version.
 */
class ResourceVersionGoneTest {
    private static final String HAMI_PODS = "hami.io%2Fvgpu-node";
    private static final long BEFORE_GONE_MS = 1500;

    private KubernetesMockServer server;
    private KubernetesClient client;
    /** The sources' client: it reads through the adapter's narrowed mapping, as in production; {@code client} writes whole objects. */
    private KubernetesClient ledgerClient;
    private final Ledger ledger = new Ledger();
    private final Fixtures.RecordingSkips skips = new Fixtures.RecordingSkips();
    private SchedulerLedgerSource source;
    private NodePodDirectory directory;
    private final List<String> received = new ArrayList<>();
    private final ManualHeartbeat heartbeat = new ManualHeartbeat();

    @BeforeEach
    void startServer() {
        server = new KubernetesMockServer(false);
        server.init();
        client = server.createClient(builder -> builder.editOrNewConfig()
                .withRequestRetryBackoffInterval(100).withWatchReconnectInterval(100).endConfig());
        ledgerClient = LedgerMapping.client(client.getConfiguration());
    }

    @AfterEach
    void stop() {
        if (source != null) {
            source.close();
        }
        if (directory != null) {
            directory.close();
        }
        ledgerClient.close();
        client.close();
        Fixtures.destroy(server);
    }

    // Before: "gone", "kept", "changed" and "recreated" (first UID) hold shares on two cards.
    private final Pod gone = placed("gone", "1", "GPU-1,NVIDIA,1000,10:;");
    private final Pod kept = placed("kept", "2", "GPU-1,NVIDIA,100,1:;");
    private final Pod changed = placed("changed", "3", "GPU-2,NVIDIA,2000,20:;");
    private final Pod recreated = placed("recreated", "4", "GPU-2,NVIDIA,300,3:;");
    // After, at list version 20: "gone" was deleted, "changed" shrank, "recreated" came back
    // under a new UID on the other card, "added" is new; "kept" is untouched (same version).
    private final Pod changedAfter = new PodBuilder(changed).editMetadata().withResourceVersion("15")
            .addToAnnotations(Fixtures.ALLOCATED, "GPU-2,NVIDIA,500,5:;").endMetadata().build();
    private final Pod recreatedAfter = placed("recreated", "16", "GPU-1,NVIDIA,700,7:;");
    private final Pod added = placed("added", "17", "GPU-1,NVIDIA,50,1:;");

    private static Pod placed(String name, String resourceVersion, String allocated) {
        return Fixtures.pod("ml", name, "node-a", allocated, "c")
                .editMetadata().withResourceVersion(resourceVersion).endMetadata()
                .editSpec().withNodeName("node-a").endSpec().build();
    }

    private static String watchPath(String resource, String labelSelector, String resourceVersion) {
        return watchPath("/api/v1/", resource, labelSelector, resourceVersion);
    }

    private static String watchPath(String group, String resource, String labelSelector, String resourceVersion) {
        return group + resource + "?allowWatchBookmarks=true"
                + (labelSelector == null ? "" : "&labelSelector=" + labelSelector)
                + "&resourceVersion=" + resourceVersion + "&timeoutSeconds=600&watch=true";
    }

    /** A watch that stays open and quiet: the session waits for a message the client never sends. */
    private void quietWatch(String path) {
        server.expect().get().withPath(path).andUpgradeToWebSocket().open()
                .expect("never sent").andEmit("never emitted").once()
                .done().always();
    }

    /** A watch that opens, stays quiet a while, then reports 410 Gone as a real API server does. */
    private void goneWatch(String path, String resourceVersion) {
        server.expect().get().withPath(path).andUpgradeToWebSocket().open()
                .waitFor(BEFORE_GONE_MS).andEmit(new WatchEvent(gone(resourceVersion), "ERROR"))
                .done().once();
    }

    private static Status gone(String resourceVersion) {
        return new StatusBuilder().withStatus("Failure").withCode(410).withReason("Expired")
                .withMessage("too old resource version: " + resourceVersion + " (19)").build();
    }

    private void expectClusterBesidesPods() {
        server.expect().get().withPath("/api/v1/nodes?limit=500").andReturn(200, new NodeListBuilder()
                .withNewMetadata().withResourceVersion("5").endMetadata()
                .withItems(node("node-a", "[" + card("GPU-1", 0, 40960) + "," + card("GPU-2", 1, 40960) + "]"))
                .build()).always();
        quietWatch(watchPath("nodes", null, "5"));
        server.expect().get().withPath("/api/v1/resourcequotas?limit=500").andReturn(200,
                new ResourceQuotaListBuilder().withNewMetadata().withResourceVersion("5").endMetadata().build())
                .always();
        quietWatch(watchPath("resourcequotas", null, "5"));
        // Unscheduled pods (unmet demand): none.
        server.expect().get().withPath("/api/v1/pods?fieldSelector=spec.nodeName%3D&limit=500").andReturn(200,
                podList("5")).always();
        server.expect().get().withPath("/api/v1/pods?allowWatchBookmarks=true&fieldSelector=spec.nodeName%3D"
                + "&resourceVersion=5&timeoutSeconds=600&watch=true").andUpgradeToWebSocket().open()
                .expect("never sent").andEmit("never emitted").once().done().always();
        // The pods' owners: none.
        server.expect().get().withPath("/apis/apps/v1/replicasets?limit=500").andReturn(200,
                new ReplicaSetListBuilder().withMetadata(new ListMetaBuilder().withResourceVersion("5").build()).build()).always();
        quietWatch(watchPath("/apis/apps/v1/", "replicasets", null, "5"));
        server.expect().get().withPath("/apis/batch/v1/jobs?limit=500").andReturn(200,
                new JobListBuilder().withMetadata(new ListMetaBuilder().withResourceVersion("5").build()).build()).always();
        quietWatch(watchPath("/apis/batch/v1/", "jobs", null, "5"));
        // The heartbeat's reachability probe.
        server.expect().get().withPath("/api/v1/nodes?limit=1&resourceVersion=0").andReturn(200, new NodeListBuilder()
                .withNewMetadata().withResourceVersion("5").endMetadata().build()).always();
    }

    private static KubernetesResource podList(String resourceVersion, Pod... pods) {
        return new PodListBuilder().withNewMetadata().withResourceVersion(resourceVersion).endMetadata()
                .withItems(pods).build();
    }

    /** Every request the mock API server has received so far, in order. */
    private List<String> requests() throws InterruptedException {
        RecordedRequest request;
        while ((request = server.takeRequest(1, TimeUnit.MILLISECONDS)) != null) {
            received.add(request.getPath());
        }
        return List.copyOf(received);
    }

    /** Waits until the API server has received {@code path} at least {@code times} times. */
    private void awaitRequests(String path, int times) {
        await(times + " requests of " + path, () -> {
            try {
                return requests().stream().filter(path::equals).count() >= times;
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
                return false;
            }
        });
    }

    private static List<String> cards(AllocationView view) {
        return view.cards().stream().map(c -> c.card().uuid() + " " + c.allocatedMemoryMib() + " MiB "
                + c.allocatedCores() + " cores " + c.sharedContainers() + " containers").toList();
    }

    private static List<String> containers(AllocationView view) {
        return view.containers().stream().map(c -> c.pod().name() + "/" + c.pod().uid() + "/"
                + c.container().name() + " " + c.uuid() + " " + c.memoryMib() + " MiB " + c.cores() + " cores")
                .toList();
    }

    /** The ledger's container shares, after checking that the card totals are their sums. */
    private List<String> ledgerShares() {
        AllocationView view = ledger.view();
        for (AllocationView.CardAllocation card : view.cards()) {
            long sum = view.containers().stream().filter(c -> c.uuid().equals(card.card().uuid()))
                    .mapToLong(AllocationView.ContainerAllocation::memoryMib).sum();
            assertEquals(sum, card.allocatedMemoryMib(), () -> "card total against its shares in " + containers(view));
        }
        return containers(view);
    }

    private List<String> directoryShares() {
        return directory.pods().stream().map(ResourceVersionGoneTest::ref).toList();
    }

    /**
     * Checks every state seen during the relist: only shares of the list before or after, the
     * untouched pod always there, the changed pod there exactly once, the re-created pod at most
     * once (its old UID leaves just before the new one arrives). An informer restart that emptied
     * the ledger, or counted a pod twice, fails here even though the final state is right.
     */
    private static void assertNothingLostOrDoubled(Set<List<String>> seen, List<String> before, List<String> after,
                                                   String kept, List<String> changedOnce, List<String> recreatedAtMostOnce) {
        for (List<String> state : seen) {
            for (String share : state) {
                assertTrue(before.contains(share) || after.contains(share), () -> "foreign share " + share + " in "
                        + state);
            }
            assertTrue(state.contains(kept), () -> "untouched pod lost in " + state);
            assertEquals(1, changedOnce.stream().filter(state::contains).count(), () -> "changed pod in " + state);
            assertTrue(recreatedAtMostOnce.stream().filter(state::contains).count() <= 1,
                    () -> "re-created pod counted twice in " + state);
            assertEquals(state.size(), Set.copyOf(state).size(), () -> "duplicate share in " + state);
        }
    }

    /** Every distinct value {@code read} returns while it runs, sampled every 2 ms. */
    private static final class Sampler<V> {
        private final Set<V> seen = ConcurrentHashMap.newKeySet();
        private final List<Throwable> failures = new CopyOnWriteArrayList<>();
        private final Thread thread;

        Sampler(Supplier<V> read) {
            thread = new Thread(() -> {
                while (!Thread.currentThread().isInterrupted()) {
                    try {
                        seen.add(read.get());
                        Thread.sleep(2);
                    } catch (InterruptedException stop) {
                        return;
                    } catch (RuntimeException | AssertionError failure) {
                        failures.add(failure);
                        return;
                    }
                }
            }, "state-sampler");
            thread.setDaemon(true);
            thread.start();
        }

        Set<V> stop() throws InterruptedException {
            thread.interrupt();
            thread.join(5_000);
            if (!failures.isEmpty()) {
                throw new AssertionError("while sampling", failures.get(0));
            }
            return Set.copyOf(seen);
        }
    }

    private static String share(Pod pod, String uuid, long mib, long cores) {
        return pod.getMetadata().getName() + "/" + pod.getMetadata().getUid() + "/c " + uuid + " " + mib + " MiB "
                + cores + " cores";
    }

    private final List<String> ledgerBefore = List.of(share(changed, "GPU-2", 2000, 20), share(gone, "GPU-1", 1000, 10),
            share(kept, "GPU-1", 100, 1), share(recreated, "GPU-2", 300, 3));
    private final List<String> ledgerAfter = List.of(share(added, "GPU-1", 50, 1), share(changedAfter, "GPU-2", 500, 5),
            share(kept, "GPU-1", 100, 1), share(recreatedAfter, "GPU-1", 700, 7));
    private static final List<String> CARDS_BEFORE = List.of("GPU-1 1100 MiB 11 cores 2 containers",
            "GPU-2 2300 MiB 23 cores 2 containers");
    private static final List<String> CARDS_AFTER = List.of("GPU-1 850 MiB 9 cores 3 containers",
            "GPU-2 500 MiB 5 cores 1 containers");

    /** Waits for the first sync, checks the state before the 410 and starts sampling the states that follow. */
    private Sampler<List<String>> ledgerBeforeGone() {
        await("first sync", ledger::isSynced);
        assertEquals(CARDS_BEFORE, cards(ledger.view()));
        assertEquals(ledgerBefore, ledgerShares());
        return new Sampler<>(this::ledgerShares);
    }

    /**
     * Waits for the state after the relist and for the watch that follows it, and checks the state
     * holds and that nothing went missing or doubled on the way.
     */
    private AllocationView ledgerAfterGone(Sampler<List<String>> sampler) throws InterruptedException {
        await("relisted after 410", () -> cards(ledger.view()).equals(CARDS_AFTER));
        // The watch from the relist's version is opened after the relist's events are applied: a
        // second relist or a replayed event would show up in the states sampled until then.
        awaitRequests(watchPath("pods", HAMI_PODS, "20"), 1);
        await("watching again", ((InformerLedgerSource) source)::healthy);
        Set<List<String>> seen = sampler.stop();
        AllocationView after = ledger.view();
        assertEquals(CARDS_AFTER, cards(after));
        assertEquals(ledgerAfter, ledgerShares());
        assertEquals(List.of(), after.unregisteredCardShares());
        assertTrue(after.freshness().synced());
        assertNothingLostOrDoubled(seen, ledgerBefore, ledgerAfter, share(kept, "GPU-1", 100, 1),
                List.of(share(changed, "GPU-2", 2000, 20), share(changedAfter, "GPU-2", 500, 5)),
                List.of(share(recreated, "GPU-2", 300, 3), share(recreatedAfter, "GPU-1", 700, 7)));
        assertEquals(List.of(), skips.reasons());
        return after;
    }

    @Test
    void theLedgerRelistsAfterGoneWithoutLosingOrDoubleCounting() throws Exception {
        expectClusterBesidesPods();
        String podList = "/api/v1/pods?labelSelector=" + HAMI_PODS + "&limit=500";
        server.expect().get().withPath(podList).andReturn(200, podList("10", gone, kept, changed, recreated)).once();
        goneWatch(watchPath("pods", HAMI_PODS, "10"), "10");
        server.expect().get().withPath(podList).andReturn(200, podList("20", kept, changedAfter, recreatedAfter, added))
                .always();
        quietWatch(watchPath("pods", HAMI_PODS, "20"));

        // The heartbeat never beats: recovery must come from the relist on 410 alone.
        source = KubernetesSources.cluster(ledgerClient, heartbeat);
        source.start(ledger, skips);
        Sampler<List<String>> sampler = ledgerBeforeGone();
        long firstSync = ledger.view().freshness().lastSyncEpochMillis();

        AllocationView after = ledgerAfterGone(sampler);
        assertTrue(after.freshness().lastSyncEpochMillis() > firstSync,
                "the relist re-marks the ledger synced without any heartbeat");
        List<String> paths = requests();
        assertEquals(2, paths.stream().filter(podList::equals).count(), paths::toString);
        assertTrue(paths.contains(watchPath("pods", HAMI_PODS, "20")), paths::toString);
        assertEquals(1, paths.stream().filter("/api/v1/nodes?limit=500"::equals).count(), "nodes not relisted");
    }

    @Test
    void aWatchResumeAnsweredGoneIsRelistedByTheHeartbeat() throws Exception {
        expectClusterBesidesPods();
        String podList = "/api/v1/pods?labelSelector=" + HAMI_PODS + "&limit=500";
        String oldWatch = watchPath("pods", HAMI_PODS, "10");
        server.expect().get().withPath(podList).andReturn(200, podList("10", gone, kept, changed, recreated)).once();
        // The first watch ends quietly (as an API server ends a watch at its timeout); resuming it
        // from version 10 is refused with HTTP 410 on the request itself, which fabric8 retries
        // from the same version for ever.
        server.expect().get().withPath(oldWatch).andUpgradeToWebSocket().open()
                .waitFor(BEFORE_GONE_MS).andEmit(new WatchEvent(new PodBuilder().withNewMetadata()
                        .withResourceVersion("10").endMetadata().build(), "BOOKMARK"))
                .done().once();
        server.expect().get().withPath(oldWatch).andReturn(410, gone("10")).always();
        // The relist itself fails a few times first: the ledger must keep its pods meanwhile.
        server.expect().get().withPath(podList).andReturn(503, "busy").times(3);
        server.expect().get().withPath(podList).andReturn(200, podList("20", kept, changedAfter, recreatedAfter, added))
                .always();
        quietWatch(watchPath("pods", HAMI_PODS, "20"));

        source = KubernetesSources.cluster(ledgerClient, heartbeat);
        source.start(ledger, skips);
        Sampler<List<String>> sampler = ledgerBeforeGone();
        // The watch ended and its resume was refused with 410 (fabric8 retries it for ever): the
        // two checks that follow find it down, and the second relists.
        awaitRequests(oldWatch, 2);
        heartbeat.beat();
        heartbeat.beat();

        AllocationView after = ledgerAfterGone(sampler);
        long relisted = after.freshness().lastSyncEpochMillis();
        Thread.sleep(2);
        heartbeat.beat();
        assertTrue(ledger.view().freshness().lastSyncEpochMillis() > relisted, "the heartbeat marks synced again");
        List<String> paths = requests();
        assertTrue(paths.stream().filter(podList::equals).count() >= 5, paths::toString);
        assertEquals(1, paths.stream().filter("/api/v1/nodes?limit=500"::equals).count(), "nodes not relisted");
    }

    private final List<String> directoryBefore = List.of(ref(changed, 2000), ref(gone, 1000), ref(kept, 100),
            ref(recreated, 300));
    private final List<String> directoryAfter = List.of(ref(added, 50), ref(changedAfter, 500), ref(kept, 100),
            ref(recreatedAfter, 700));

    /** Checks the state before, runs {@code gone} (what makes the directory relist) and checks the state after. */
    private void directoryRecovers(String expectedRelist, Runnable gone) throws Exception {
        await("first list", () -> directory.isSynced() && directoryShares().size() == 4);
        assertEquals(directoryBefore, directoryShares());
        Sampler<List<String>> sampler = new Sampler<>(this::directoryShares);
        gone.run();
        await("relisted after 410", () -> directoryShares().equals(directoryAfter));
        // As for the ledger: sampled until the watch from the relist's version is opened.
        awaitRequests(watchPath("pods", HAMI_PODS + "%3Dnode-a", "20"), 1);
        Set<List<String>> seen = sampler.stop();
        assertEquals(directoryAfter, directoryShares());
        assertTrue(directory.isSynced());
        assertNothingLostOrDoubled(seen, directoryBefore, directoryAfter, ref(kept, 100),
                List.of(ref(changed, 2000), ref(changedAfter, 500)),
                List.of(ref(recreated, 300), ref(recreatedAfter, 700)));
        assertEquals(List.of(), skips.reasons());
        List<String> paths = requests();
        assertTrue(paths.contains(expectedRelist), paths::toString);
        assertTrue(paths.contains(watchPath("pods", HAMI_PODS + "%3Dnode-a", "20")), paths::toString);
    }

    @Test
    void theNodeDirectoryRelistsAfterGone() throws Exception {
        String selector = HAMI_PODS + "%3Dnode-a";
        String relist = "/api/v1/pods?labelSelector=" + selector;
        server.expect().get().withPath(relist + "&resourceVersion=0")
                .andReturn(200, podList("10", gone, kept, changed, recreated)).once();
        goneWatch(watchPath("pods", selector, "10"), "10");
        // The relist is a consistent read: no resourceVersion=0 once the informer has synced.
        server.expect().get().withPath(relist).andReturn(200, podList("20", kept, changedAfter, recreatedAfter,
                added)).always();
        quietWatch(watchPath("pods", selector, "20"));

        // The heartbeat never beats: recovery must come from the relist on 410 alone.
        directory = KubernetesSources.nodePods(ledgerClient, "node-a", heartbeat);
        directory.start(skips);
        directoryRecovers(relist, () -> { });
    }

    @Test
    void theNodeDirectoryRelistsWhenEveryWatchResumeIsAnsweredGone() throws Exception {
        String selector = HAMI_PODS + "%3Dnode-a";
        String oldWatch = watchPath("pods", selector, "10");
        // A restarted informer lists from the watch cache again (resourceVersion=0).
        String cachedList = "/api/v1/pods?labelSelector=" + selector + "&resourceVersion=0";
        server.expect().get().withPath(cachedList).andReturn(200, podList("10", gone, kept, changed, recreated)).once();
        server.expect().get().withPath(oldWatch).andUpgradeToWebSocket().open()
                .waitFor(BEFORE_GONE_MS).andEmit(new WatchEvent(new PodBuilder().withNewMetadata()
                        .withResourceVersion("10").endMetadata().build(), "BOOKMARK"))
                .done().once();
        server.expect().get().withPath(oldWatch).andReturn(410, gone("10")).always();
        server.expect().get().withPath(cachedList).andReturn(503, "busy").times(3);
        server.expect().get().withPath(cachedList).andReturn(200, podList("20", kept, changedAfter, recreatedAfter,
                added)).always();
        quietWatch(watchPath("pods", selector, "20"));

        directory = KubernetesSources.nodePods(ledgerClient, "node-a", heartbeat);
        directory.start(skips);
        directoryRecovers(cachedList, () -> {
            // The watch ended and every resume is refused with 410: the two checks that follow find
            // it down, and the second relists.
            awaitRequests(oldWatch, 2);
            heartbeat.beat();
            heartbeat.beat();
        });
    }

    private static String ref(Pod pod, long mib) {
        return pod.getMetadata().getName() + "/" + pod.getMetadata().getUid() + " " + mib + " MiB";
    }

    private static String ref(NodePod pod) {
        return pod.pod().name() + "/" + pod.pod().uid() + pod.placement().map(placement -> " " + placement.containers()
                .stream().flatMap(c -> c.devices().stream()).mapToLong(d -> d.memoryMib()).sum() + " MiB")
                .orElse(" unplaced");
    }
}
