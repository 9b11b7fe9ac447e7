package io.hamiobserve.app.bench;

import io.hamiobserve.app.AllocationRole;
import io.hamiobserve.app.Servers;
import io.hamiobserve.app.http.ExpositionFormat;
import io.hamiobserve.app.metrics.BuildInfo;
import io.hamiobserve.domain.CardMode;
import io.hamiobserve.domain.ContainerShares;
import io.hamiobserve.domain.DeviceShare;
import io.hamiobserve.domain.Ledger;
import io.hamiobserve.domain.PodPhase;
import io.hamiobserve.domain.PodPlacement;
import io.hamiobserve.domain.PodRef;
import io.hamiobserve.domain.RegisteredCard;
import io.hamiobserve.ports.SchedulerLedgerSource;
import io.hamiobserve.ports.SkipReporter;
import io.helidon.webserver.WebServer;

import java.io.ByteArrayOutputStream;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The allocation endpoint at the scale of a large cluster: 1,250 nodes × 8 cards (10,000 cards)
 * and 100,000 placed containers (one GPU container per pod). Prints the time to render a full
 * scrape, the time of a scrape when nothing changed (over HTTP, served from the last rendering),
 * the cost of one pod event, and the heap the ledger holds.
 *
 * <p>Run: {@code bin/bench app io.hamiobserve.app.bench.AllocationScrapeBenchmark [nodes] [containers]}
 */
public final class AllocationScrapeBenchmark {
    private AllocationScrapeBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int nodes = args.length > 0 ? Integer.parseInt(args[0]) : 1_250;
        int containers = args.length > 1 ? Integer.parseInt(args[1]) : 100_000;
        int cardsPerNode = 8;
        System.out.printf("ledger: %,d nodes x %d cards = %,d cards, %,d containers%n", nodes, cardsPerNode,
                nodes * cardsPerNode, containers);

        long heapBefore = usedHeapAfterGc();
        Ledger[] holder = new Ledger[1];
        List<PodPlacement> pods = new ArrayList<>(containers);
        SchedulerLedgerSource synthetic = new SchedulerLedgerSource() {
            @Override
            public void start(Ledger ledger, SkipReporter skips) {
                holder[0] = ledger;
                for (int n = 0; n < nodes; n++) {
                    List<RegisteredCard> cards = new ArrayList<>();
                    for (int c = 0; c < cardsPerNode; c++) {
                        cards.add(new RegisteredCard(uuid(n, c), c, 10, 81559, 100, "NVIDIA H100 80GB HBM3", c / 4,
                                CardMode.HAMI_CORE, true));
                    }
                    ledger.putNode(String.format("gpu-node-%04d", n), cards);
                }
                for (int p = 0; p < containers; p++) {
                    PodPlacement pod = pod(p, nodes, cardsPerNode, 4096);
                    pods.add(pod);
                    ledger.putPod(pod);
                }
                ledger.markSynced(System.currentTimeMillis());
            }

            @Override
            public void close() {
            }
        };
        long loadStart = System.nanoTime();
        AllocationRole role = new AllocationRole(synthetic, false, BuildInfo.current()).start();
        long loadNanos = System.nanoTime() - loadStart;
        pods.clear();
        long heapAfter = usedHeapAfterGc();
        System.out.printf("initial load: %.0f ms (%.2f us per pod)%n", loadNanos / 1e6, loadNanos / 1e3 / containers);
        System.out.printf("ledger heap: %.1f MiB (%.0f bytes per container)   target <= 512 MiB%n",
                (heapAfter - heapBefore) / 1048576.0, (double) (heapAfter - heapBefore) / containers);

        // Full render: the view, the snapshots and the text, as a scrape after a change does it.
        long[] full = new long[9];
        int bytes = 0;
        for (int i = 0; i < full.length; i++) {
            long start = System.nanoTime();
            ByteArrayOutputStream out = new ByteArrayOutputStream(1 << 24);
            ExpositionFormat.PROMETHEUS_TEXT.writer().write(out, role.collect());
            full[i] = System.nanoTime() - start;
            bytes = out.size();
        }
        long[] collectOnly = new long[5];
        long[] writeOnly = new long[5];
        for (int i = 0; i < collectOnly.length; i++) {
            long start = System.nanoTime();
            var snapshots = role.collect();
            collectOnly[i] = System.nanoTime() - start;
            start = System.nanoTime();
            ExpositionFormat.PROMETHEUS_TEXT.writer().write(java.io.OutputStream.nullOutputStream(), snapshots);
            writeOnly[i] = System.nanoTime() - start;
        }
        System.out.printf("  of which: view + snapshots median %.0f ms, text writer median %.0f ms%n",
                median(collectOnly) / 1e6, median(writeOnly) / 1e6);
        System.out.printf("full render: median %.0f ms, min %.0f ms over %d runs; %,d bytes, %,d lines   "
                        + "target <= 1000 ms%n", median(full) / 1e6, Arrays.stream(full).min().orElseThrow() / 1e6,
                full.length, bytes, bytes / 150);

        // A scrape when nothing changed, over HTTP: served from the last rendering. Prometheus asks
        // for gzip; both encodings are measured.
        WebServer server = Servers.serve("127.0.0.1:0", role);
        HttpClient client = HttpClient.newHttpClient();
        URI metrics = URI.create("http://127.0.0.1:" + server.port() + "/metrics");
        for (boolean gzip : new boolean[] {true, false}) {
            HttpRequest.Builder builder = HttpRequest.newBuilder(metrics);
            if (gzip) {
                builder.header("Accept-Encoding", "gzip");
            }
            HttpRequest request = builder.build();
            int size = client.send(request, HttpResponse.BodyHandlers.ofByteArray()).body().length;
            long[] unchanged = new long[30];
            for (int i = 0; i < unchanged.length; i++) {
                long start = System.nanoTime();
                HttpResponse<byte[]> response = client.send(request, HttpResponse.BodyHandlers.ofByteArray());
                unchanged[i] = System.nanoTime() - start;
                if (response.statusCode() != 200) {
                    throw new IllegalStateException("scrape answered " + response.statusCode());
                }
            }
            System.out.printf("unchanged-state scrape over HTTP, %s (%,d bytes): median %.1f ms, p90 %.1f ms   "
                    + "target <= 100 ms%n", gzip ? "gzip" : "identity", size, median(unchanged) / 1e6,
                    percentile(unchanged, 0.9) / 1e6);
        }
        server.stop();

        // One pod event: a placed pod changes its share (the ledger subtracts the old, adds the new).
        Ledger ledger = holder[0];
        int events = 200_000;
        long start = System.nanoTime();
        for (int i = 0; i < events; i++) {
            ledger.putPod(pod(i % containers, nodes, cardsPerNode, (i & 1) == 0 ? 2048 : 4096));
        }
        long eventNanos = System.nanoTime() - start;
        System.out.printf("one pod event (Ledger.putPod of a changed pod): %.2f us averaged over %,d   "
                + "target <= 50 us%n", eventNanos / 1e3 / events, events);
    }

    static PodPlacement pod(int p, int nodes, int cardsPerNode, long memoryMib) {
        int node = p % nodes;
        int card = (p / nodes) % cardsPerNode;
        PodRef ref = new PodRef("team-" + (p % 50), "job-" + p, String.format("%08x-0000-4000-8000-%012x", p, p));
        ContainerShares container = new ContainerShares(0, "worker", false,
                List.of(new DeviceShare(uuid(node, card), "NVIDIA", memoryMib, 10)));
        return new PodPlacement(ref, String.format("gpu-node-%04d", node), PodPhase.RUNNING, true, List.of(container));
    }

    /** Random-looking like real card UUIDs (deterministic, so runs compare). */
    static String uuid(int node, int card) {
        return "GPU-" + java.util.UUID.nameUUIDFromBytes((node + "/" + card).getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    private static long usedHeapAfterGc() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(100);
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    static long median(long[] values) {
        return percentile(values, 0.5);
    }

    static long percentile(long[] values, double fraction) {
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(fraction * sorted.length) - 1)];
    }
}
