package io.hamiobserve.role.scheduler;

import io.hamiobserve.app.testing.Expositions;
import io.hamiobserve.edge.Servers;
import io.hamiobserve.exposition.testing.Promtool;
import io.hamiobserve.adapters.k8s.KubernetesSources;
import io.hamiobserve.app.cli.Launch;
import io.hamiobserve.app.cli.Launcher;
import io.hamiobserve.exposition.ExpositionFormat;
import io.hamiobserve.exposition.FamilySelection;
import io.hamiobserve.domain.Shard;
import io.helidon.webserver.WebServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The ledger a hostile tenant or a careless operator can make, as one dump: a pod whose share no
 * card can have (the pod that used to blind every allocation scrape with {@code long overflow}), a
 * node registering such a card, pods with 2^62 cores, thousands of pods at the largest share the
 * domain allows on one card (a sum past a long in bytes), a card UUID registered by two nodes and
 * an annotation of 3 MB (an object past the snapshot's 4 MiB bound refuses the whole dump: SnapshotObjectBoundTest), owner references that loop, chain 10,000 deep, carry a megabyte name
 * or a name with quotes, backslashes and a newline, next to well-behaved pods. Each must be skipped
 * with its reason (or cut short and counted), escaped, or shown
 * saturated, and the rest counted: in process, over HTTP (200 and a valid exposition) and in
 * {@code scheduler --snapshot F --once} (exit 0).
 */
class HostileLedgerTest {
    private static final String GOOD = "GPU-00000000-good";
    private static final String CROWDED = "GPU-00000000-crowded";
    private static final int CROWD = 9_000;
    private static final String ODD = "q\"uote\\back\nline";

    @TempDir
    Path dir;

    private final List<WebServer> servers = new ArrayList<>();

    @AfterEach
    void stop() {
        servers.forEach(WebServer::stop);
    }

    private static String node(String name, String register) {
        return "{\"kind\":\"Node\",\"metadata\":{\"name\":\"" + name + "\",\"annotations\":{"
                + "\"hami.io/node-nvidia-register\":" + quoted(register) + "}}}";
    }

    private static String pod(String namespace, String name, String node, String allocated) {
        return "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"" + name + "\",\"namespace\":\"" + namespace + "\",\"uid\":\""
                + namespace + "-" + name + "\",\"labels\":{\"hami.io/vgpu-node\":\"" + node + "\"},\"annotations\":{"
                + "\"hami.io/vgpu-node\":\"" + node + "\",\"hami.io/vgpu-devices-allocated\":" + quoted(allocated)
                + "}},\"spec\":{\"containers\":[{\"name\":\"main\"}]},\"status\":{\"phase\":\"Running\"}}";
    }

    private static String quoted(String text) {
        return "\"" + text.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n") + "\"";
    }

    /** {@code pod} controlled by the given owner. */
    private static String ownedPod(String name, String kind, String owner, String ownerUid) {
        // A share of node-b's own card, whose totals no assertion reads.
        String pod = pod("evil", name, "node-a", "GPU-b-own,NVIDIA,1,1:;");
        return pod.replace("\"annotations\":{", "\"ownerReferences\":[{\"apiVersion\":\"x/v1\",\"kind\":"
                + quoted(kind) + ",\"name\":" + quoted(owner) + ",\"uid\":" + quoted(ownerUid)
                + ",\"controller\":true}],\"annotations\":{");
    }

    /** A ReplicaSet of namespace {@code evil} controlled by another ReplicaSet. */
    private static String replicaSet(String name, String uid, String above, String aboveUid) {
        return "{\"apiVersion\":\"apps/v1\",\"kind\":\"ReplicaSet\",\"metadata\":{\"name\":" + quoted(name)
                + ",\"namespace\":\"evil\",\"uid\":" + quoted(uid) + ",\"ownerReferences\":[{\"kind\":\"ReplicaSet\","
                + "\"name\":" + quoted(above) + ",\"uid\":" + quoted(aboveUid) + ",\"controller\":true}]}}";
    }

    /** The hostile cluster as a {@code kubectl -o json} dump. */
    private Path hostileDump() throws IOException {
        List<String> items = new ArrayList<>();
        items.add(node("node-a", "[{\"id\":\"" + GOOD + "\",\"devmem\":40960,\"devcore\":100,\"count\":100},"
                + "{\"id\":\"" + CROWDED + "\",\"index\":1,\"devmem\":81920,\"devcore\":100,\"count\":10000},"
                + "{\"id\":\"GPU-shared\",\"index\":2,\"devmem\":40960,\"devcore\":100,\"count\":10}]"));
        // A node registering a card of 9,000,000,000,000 MiB: that card is skipped, the node's others kept.
        items.add(node("node-b", "[{\"id\":\"GPU-huge\",\"devmem\":9000000000000},"
                + "{\"id\":\"GPU-shared\",\"index\":1,\"devmem\":40960,\"count\":10},"
                + "{\"id\":\"GPU-b-own\",\"index\":2,\"devmem\":40960}]"));
        items.add(pod("ml", "good", "node-a", GOOD + ",NVIDIA,1000,10:;"));
        items.add(pod("evil", "blind", "node-a", "GPU-a,NVIDIA,9000000000000,10:;"));
        for (int i = 0; i < 3; i++) {
            items.add(pod("evil", "cores-" + i, "node-a", GOOD + ",NVIDIA,1,4611686018427387904:;"));
        }
        for (int i = 0; i < CROWD; i++) {
            items.add(pod("crowd", "p" + i, "node-a", CROWDED + ",NVIDIA,1073741824,1073741824:;"));
        }
        items.add(pod("ml", "on-shared", "node-b", "GPU-shared,NVIDIA,2000,20:;"));
        // Owners: a name to escape, a megabyte name, a cycle of two ReplicaSets, a chain 10,000 deep.
        items.add(ownedPod("odd-owner", "RayCluster", ODD, "uid-odd"));
        items.add(ownedPod("huge-owner", "ReplicaSet", "r".repeat(1 << 20), "uid-huge"));
        items.add(ownedPod("in-cycle", "ReplicaSet", "cycle-a", "uid-cycle-a"));
        items.add(replicaSet("cycle-a", "uid-cycle-a", "cycle-b", "uid-cycle-b"));
        items.add(replicaSet("cycle-b", "uid-cycle-b", "cycle-a", "uid-cycle-a"));
        items.add(ownedPod("deep", "ReplicaSet", "deep-0", "uid-deep-0"));
        for (int i = 0; i < 10_000; i++) {
            items.add(replicaSet("deep-" + i, "uid-deep-" + i, "deep-" + (i + 1), "uid-deep-" + (i + 1)));
        }
        items.add(replicaSet("m".repeat(1 << 20), "uid-big", "x", "uid-x"));
        // 3 MB, within the 4 MiB one object of a dump may take: read, then refused by the decoder.
        items.add(pod("evil", "flood", "node-a", "x".repeat(3 << 20)));
        return Files.writeString(dir.resolve("hostile.json"), "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[\n"
                + String.join(",\n", items) + "]}\n");
    }

    /** The figures every rendering of the hostile ledger must show. */
    private static void assertCountedAsPromised(String exposition) {
        // The well-behaved pod counts, and nothing of the rejected shares is added to its card.
        assertTrue(exposition.contains("hami_gpu_memory_allocated_bytes{device_cores=\"100\",device_index=\"0\","
                + "device_type=\"\",device_uuid=\"" + GOOD + "\",node=\"node-a\",zone=\"vGPU\"} 1.048576E9"), exposition);
        assertTrue(exposition.contains("hami_gpu_core_allocated_ratio{device_index=\"0\",device_type=\"\","
                + "device_uuid=\"" + GOOD + "\",node=\"node-a\",zone=\"vGPU\"} 10.0"), exposition);
        // 9,000 shares of 2^30 MiB: exact in MiB, past a long in bytes, so the bytes saturate.
        assertTrue(exposition.contains("hami_gpu_memory_allocated_bytes{device_cores=\"100\",device_index=\"1\","
                + "device_type=\"\",device_uuid=\"" + CROWDED + "\",node=\"node-a\",zone=\"vGPU\"} 9.223372036854776E18"),
                exposition);
        assertTrue(exposition.contains("hami_gpu_core_allocated_ratio{device_index=\"1\",device_type=\"\",device_uuid=\""
                + CROWDED + "\",node=\"node-a\",zone=\"vGPU\"} " + (double) CROWD * (1L << 30)), exposition);
        // GPU-shared is registered by node-a and node-b: counted once, on node-a, with node-b's pod on it.
        assertEquals(1, exposition.lines().filter(line -> line.startsWith("hami_gpu_memory_allocated_bytes{")
                && line.contains("device_uuid=\"GPU-shared\"")).count(), exposition);
        assertTrue(exposition.contains("device_uuid=\"GPU-shared\",node=\"node-a\",zone=\"vGPU\"} 2.097152E9"));
        assertFalse(exposition.contains("GPU-huge"), "a card of 9e12 MiB is not registered");
        assertTrue(exposition.lines().noneMatch(line -> !line.startsWith("#") && line.contains("} -")),
                "no negative figure");
        for (Map.Entry<String, Long> skip : Map.of(
                "kind=\"nvidia_node\",reason=\"number_overflow\",source=\"kubernetes\"", 1L,
                "kind=\"nvidia_pod\",reason=\"number_overflow\",source=\"kubernetes\"", 4L,
                "kind=\"node_annotation\",reason=\"duplicate_uuid\",source=\"kubernetes\"", 1L,
                "kind=\"nvidia_pod\",reason=\"too_long\",source=\"kubernetes\"", 1L).entrySet()) {
            assertTrue(exposition.contains("hami_observe_skipped_inputs_total{" + skip.getKey() + "} "
                    + skip.getValue() + ".0"), skip + "\n" + exposition);
        }
        assertTrue(exposition.contains("hami_observe_ledger_synced 1.0"));

        // Every pod has exactly one owner, its text escaped; chains end bounded, and all of it is counted.
        for (String owner : List.of("pod=\"good\"", "owner_kind=\"RayCluster\",owner_name=\"q\\\"uote\\\\back\\nline\","
                        + "pod=\"odd-owner\"", "owner_kind=\"Pod\",owner_name=\"huge-owner\",pod=\"huge-owner\"",
                "owner_kind=\"ReplicaSet\",owner_name=\"cycle-b\",pod=\"in-cycle\"",
                "owner_kind=\"ReplicaSet\",owner_name=\"deep-7\",pod=\"deep\"")) {
            assertEquals(1, exposition.lines().filter(line -> line.startsWith("hami_observe_pod_owner{")
                    && line.contains(owner)).count(), owner + "\n" + exposition);
        }
        // good, blind, cores-0..2, the crowd, on-shared, flood and the four owned pods: each once.
        assertEquals(CROWD + 11, exposition.lines().filter(line -> line.startsWith("hami_observe_pod_owner{")).count());
        for (Map.Entry<String, Long> skip : Map.of(
                "kind=\"owner_reference\",reason=\"owner_cycle\",source=\"kubernetes\"", 1L,
                "kind=\"owner_reference\",reason=\"owner_chain_too_deep\",source=\"kubernetes\"", 1L,
                "kind=\"owner_reference\",reason=\"too_long\",source=\"kubernetes\"", 1L,
                "kind=\"owner\",reason=\"too_long\",source=\"kubernetes\"", 1L).entrySet()) {
            assertTrue(exposition.contains("hami_observe_skipped_inputs_total{" + skip.getKey() + "} "
                    + skip.getValue() + ".0"), skip + "\n" + exposition);
        }
        assertFalse(exposition.contains("rrrrrrrrrr") || exposition.contains("mmmmmmmmmm"), "no megabyte name");
    }

    @Test
    void inProcessEveryHostileInputIsSkippedOrSaturatedAndTheRestCounted() throws Exception {
        List<LogRecord> logged = new ArrayList<>();
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord record) {
                logged.add(record);
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Logger root = Logger.getLogger("");
        root.addHandler(capture);
        AllocationRole role;
        try {
            role = ownersOptedIn(hostileDump());
        } finally {
            root.removeHandler(capture);
        }
        for (ExpositionFormat format : ExpositionFormat.values()) {
            String exposition = Expositions.render(role, format);
            if (format == ExpositionFormat.PROMETHEUS_TEXT) {
                assertCountedAsPromised(exposition);
                Promtool.assertClean(exposition);
            }
        }
        // The 3 MB annotation is not logged whole: every logged line is bounded.
        for (LogRecord record : logged) {
            String line = java.text.MessageFormat.format(record.getMessage(),
                    record.getParameters() == null ? new Object[0] : record.getParameters());
            assertTrue(line.length() < 2_000, "a log line of " + line.length() + " characters");
        }
        role.close();
    }

    @Test
    void overHttpTheAllocationEndpointAnswers200WithAValidExposition() throws Exception {
        AllocationRole role = ownersOptedIn(hostileDump());
        WebServer server = Servers.serve("127.0.0.1:0", role);
        servers.add(server);
        HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + server.port() + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode(), response.body());
        assertCountedAsPromised(response.body());
        Promtool.assertClean(response.body());
        HttpResponse<String> ready = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + server.port() + "/readyz")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, ready.statusCode());
        role.close();
    }

    /** The role over a dump, its pods' owners opted in (hami_observe_pod_owner is off by default). */
    private static AllocationRole ownersOptedIn(Path dump) {
        return new AllocationRole(KubernetesSources.snapshot(dump), false, ContainerSeries.POD_EFFECTIVE,
                Expositions.BUILD, Shard.ALL, Clock.systemUTC(), FamilySelection.of(AllocationMetrics.OPT_IN,
                List.of(AllocationMetrics.POD_OWNER.name()), List.of(), List.of())).start();
    }

    @Test
    void schedulerOnceExitsZeroWithAValidExposition() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = Launcher.run(new Launch(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), Map.of()), "scheduler", "--snapshot",
                hostileDump().toString(), "--once", "--metric-opt-in-list", "hami_observe_pod_.*");
        assertEquals(0, exit, err.toString(StandardCharsets.UTF_8));
        String exposition = out.toString(StandardCharsets.UTF_8);
        assertCountedAsPromised(exposition);
        Promtool.assertClean(exposition);
    }

    @Test
    void schedulerOnceOnAFileThatIsNotADumpIsOneLineAndExitTwo() throws Exception {
        for (Path notADump : List.of(Files.writeString(dir.resolve("map.yaml"), "apiVersion: v1\nkind_of: x\n"),
                Path.of("/dev/zero"), dir)) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            long started = System.nanoTime();
            int exit = Launcher.run(new Launch(new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8), Map.of()), "scheduler", "--snapshot",
                    notADump.toString(), "--once");
            assertEquals(2, exit);
            assertTrue(System.nanoTime() - started < 10_000_000_000L, "fails at once, not after the sync timeout");
            String message = err.toString(StandardCharsets.UTF_8);
            assertEquals(1, message.lines().count(), message);
            assertTrue(message.startsWith("hami-observe: snapshot " + notADump + ": "), message);
            assertEquals("", out.toString(StandardCharsets.UTF_8));
        }
    }

    @Test
    void servingAFileThatIsNotADumpIsNotReadyAndSaysWhy() throws Exception {
        AllocationRole role = new AllocationRole(KubernetesSources.snapshot(Path.of("/dev/zero")), false,
                Expositions.BUILD).start();
        WebServer server = Servers.serve("127.0.0.1:0", role);
        servers.add(server);
        HttpClient client = HttpClient.newHttpClient();
        HttpResponse<String> ready = client.send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + server.port() + "/readyz")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(503, ready.statusCode());
        assertTrue(ready.body().contains("snapshot /dev/zero: not a regular file"), ready.body());
        HttpResponse<String> metrics = client.send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + server.port() + "/metrics")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, metrics.statusCode());
        assertTrue(metrics.body().contains("hami_observe_ledger_synced 0.0"), metrics.body());
        assertTrue(metrics.body().contains("hami_observe_scrape_source_success{source=\"ledger\"} 0.0"), metrics.body());
        Promtool.assertClean(metrics.body());
        role.close();
    }
}
