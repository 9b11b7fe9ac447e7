package io.hamiobserve.role.scheduler.bench;

import io.hamiobserve.exposition.Exposition;
import io.hamiobserve.exposition.FamilyDecorator;
import io.hamiobserve.exposition.FamilySelection;
import io.hamiobserve.exposition.RenderCache;
import io.hamiobserve.edge.http.MetricsSource;
import io.hamiobserve.app.metrics.SelfMetrics;
import io.hamiobserve.app.metrics.SkipCounter;
import io.hamiobserve.app.metrics.SourceHealth;
import io.hamiobserve.domain.AllocationView;
import io.hamiobserve.role.scheduler.AllocationMetrics;
import io.hamiobserve.role.scheduler.ContainerSeries;
import io.hamiobserve.role.scheduler.AllocationRole;
import io.hamiobserve.edge.Servers;
import io.hamiobserve.exposition.ExpositionFormat;
import io.hamiobserve.app.metrics.BuildInfo;
import io.hamiobserve.domain.CardMode;
import io.hamiobserve.domain.ContainerShares;
import io.hamiobserve.domain.DeviceShare;
import io.hamiobserve.domain.Ledger;
import io.hamiobserve.domain.Shard;
import io.hamiobserve.domain.PodPhase;
import io.hamiobserve.domain.PodPlacement;
import io.hamiobserve.domain.PodRef;
import io.hamiobserve.domain.CoreUnit;
import io.hamiobserve.domain.DeviceUnits;
import io.hamiobserve.domain.MemoryUnit;
import io.hamiobserve.domain.RegisteredCard;
import io.hamiobserve.domain.VendorCard;
import io.hamiobserve.ports.SchedulerLedgerSource;
import io.hamiobserve.ports.SkipReporter;
import io.helidon.webserver.WebServer;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.zip.GZIPOutputStream;

/**
 * The allocation endpoint at the scale of a large cluster: 1,250 nodes × 8 cards (10,000 cards;
 * 60% NVIDIA, 20% Ascend, 10% Hygon, 10% AMD nodes) and 100,000 placed containers (one device
 * container per pod). Prints the time to render the full
 * exposition cold (nothing rendered before) and after 1, 100 and 1,000 pod events (the changed
 * pods rendered anew, the rest reused), in both formats and with gzip; the same data written by
 * one library writer call for reference; Prometheus's scrape over HTTP after 1, 100 and 1,000 pod
 * events, right after start and again once the code is warm; the same warm scrapes by curl, another
 * process as Prometheus is (the in-process client reads each body on the server's cores and heap;
 * {@code deployed curl}: every scrape after events by curl, right after start included);
 * the time of a scrape when nothing changed (over HTTP,
 * served from the last rendering); the cost of one pod event; and the heap the ledger and the
 * render cache hold.
 *
 * <p>Run: {@code bin/bench role-scheduler io.hamiobserve.role.scheduler.bench.AllocationScrapeBenchmark [nodes] [containers]}
 * {@code [deployed|all-families]}: the families the endpoint writes by default
 * ({@link AllocationMetrics#DEFAULT_SELECTION}), or with every opt-in family too; or
 * {@code profile EVENTS ROUNDS}: only the compressed rendering in process after EVENTS pod events,
 * ROUNDS times, and its median, then the median time and process CPU of the last half, once the JIT
 * has compiled the loop (a steady loop to run under a profiler, such as JFR); or
 * {@code families EVENTS}: each family's bytes and lines in the exposition, and how many of its lines
 * EVENTS pod events changed (what a changed node's segments render again only to write the same). With
 * {@code PEER_HAMI_GO} naming a built {@code ../shared/peers/peer-hami-go}, the peer runs first on
 * the same ledger shape (nodes × 8 cards, one container per pod) and the ratios are printed.
 */
public final class AllocationScrapeBenchmark {
    private AllocationScrapeBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int nodes = args.length > 0 ? Integer.parseInt(args[0]) : 1_250;
        int containers = args.length > 1 ? Integer.parseInt(args[1]) : 100_000;
        // "deployed": only what a deployed scheduler does (Prometheus's request over HTTP), to run
        // with the scheduler image's JVM options: BENCH_JAVA_OPTS="-XX:+UseParallelGC -Xmx358m".
        boolean deployed = args.length > 2 && args[2].equals("deployed");
        // "deployed curl": every scrape after pod events by curl, right after start included.
        boolean byCurl = deployed && args.length > 3 && args[3].equals("curl");
        FamilySelection selection = args.length > 2 && args[2].equals("all-families") ? FamilySelection.ALL
                : AllocationMetrics.DEFAULT_SELECTION;
        int cardsPerNode = 8;
        Peer peer = Peer.run(nodes, cardsPerNode, containers);
        System.out.printf("ledger: %,d nodes x %d cards = %,d cards, %,d containers%n", nodes, cardsPerNode,
                nodes * cardsPerNode, containers);

        long heapBefore = usedHeapAfterGc();
        Ledger[] holder = new Ledger[1];
        SchedulerLedgerSource synthetic = syntheticLedger(nodes, cardsPerNode, containers, holder);
        long loadStart = System.nanoTime();
        synthetic.start(new Ledger(), SkipReporter.NONE);
        long loadNanos = System.nanoTime() - loadStart;
        long heapAfter = usedHeapAfterGc();
        System.out.printf("initial load: %.0f ms (%.2f us per pod)%n", loadNanos / 1e6, loadNanos / 1e3 / containers);
        System.out.printf("ledger heap: %.1f MiB (%.0f bytes per container)   target <= 512 MiB%n",
                (heapAfter - heapBefore) / 1048576.0, (double) (heapAfter - heapBefore) / containers);

        Ledger ledger = holder[0];
        Rendering role = new Rendering(ledger, Shard.ALL, selection);
        if (args.length > 2 && args[2].equals("families")) {
            printChangedFamilies(role, ledger, Integer.parseInt(args[3]), nodes, cardsPerNode, containers);
            return;
        }
        if (args.length > 2 && args[2].equals("profile")) {
            // profile EVENTS ROUNDS: the scrape's rendering after EVENTS pod events, and nothing else.
            int events = Integer.parseInt(args[3]);
            int rounds = Integer.parseInt(args[4]);
            render(role, ExpositionFormat.OPENMETRICS_TEXT, true);
            long[] took = new long[rounds];
            long[] cpu = new long[rounds];
            int sequence = 0;
            for (int r = 0; r < rounds; r++) {
                sequence = changePods(ledger, events, sequence, nodes, cardsPerNode, containers);
                long cpuStart = processCpuNanos();
                long start = System.nanoTime();
                render(role, ExpositionFormat.OPENMETRICS_TEXT, true);
                took[r] = System.nanoTime() - start;
                cpu[r] = processCpuNanos() - cpuStart;
            }
            // The second half apart: the JIT compiles the render after many events for some ten rounds
            // on two cores, so a change in the work done shows there, not in the warm-up's drift.
            long[] warm = Arrays.copyOfRange(took, rounds / 2, rounds);
            long[] warmCpu = Arrays.copyOfRange(cpu, rounds / 2, rounds);
            System.out.printf("profile: %d events, median %.1f ms over %d rounds; the last %d: median %.1f ms, "
                    + "process CPU (every thread, the collector's too) median %.1f ms a round%n", events,
                    median(took) / 1e6, rounds, warm.length, median(warm) / 1e6, median(warmCpu) / 1e6);
            return;
        }
        if (!deployed) {
            // Cold render: nothing rendered before (start-up, or every pod changed).
            ColdRenders colds = coldRenders(role, 5);
            long[] cold = colds.nanos();
            long bytes = colds.bytes();
            System.out.printf("cold render (nothing rendered before): median %.0f ms, min %.0f ms over %d runs; "
                    + "%,d bytes%n", median(cold) / 1e6, min(cold) / 1e6, cold.length, bytes);
            if (peer != null) {
                System.out.printf("bytes against HAMi's collector pattern (peer-hami-go, %,d bytes): %.2fx   "
                        + "target <= 1.5x%n", peer.bytes(), (double) bytes / peer.bytes());
            }

            // Full render after a change: the whole exposition again, as the scrape after pod events
            // does it; only the changed pods and the nodes they touch are rendered anew.
            int sequence = 0;
            for (int changed : new int[] {1, 100, 1_000}) {
                for (ExpositionFormat format : ExpositionFormat.values()) {
                    for (boolean gzip : new boolean[] {false, true}) {
                        render(role, format, gzip);
                        long[] after = new long[9];
                        for (int i = 0; i < after.length; i++) {
                            sequence = changePods(ledger, changed, sequence, nodes, cardsPerNode, containers);
                            long start = System.nanoTime();
                            bytes = render(role, format, gzip);
                            after[i] = System.nanoTime() - start;
                        }
                        System.out.printf("full render after %,d pod event(s), %s%s (%,d bytes): median %.0f ms, "
                                        + "min %.0f ms over %d runs   target <= 1000 ms%n", changed, format,
                                gzip ? " + gzip" : "", bytes, median(after) / 1e6, min(after) / 1e6, after.length);
                        if (changed > 1 && gzip) {
                            break;
                        }
                    }
                    if (changed > 1) {
                        break;
                    }
                }
            }

            // gzip levels on the same body: the endpoint compresses at the fastest.
            ByteArrayOutputStream rendered = new ByteArrayOutputStream((int) bytes + (1 << 20));
            role.collect().write(rendered, ExpositionFormat.PROMETHEUS_TEXT);
            byte[] body = rendered.toByteArray();
            rendered = null;
            long[] levelMedians = new long[2];
            int index = 0;
            for (int level : new int[] {java.util.zip.Deflater.DEFAULT_COMPRESSION, java.util.zip.Deflater.BEST_SPEED}) {
                long[] times = new long[5];
                int size = 0;
                for (int i = 0; i < times.length; i++) {
                    long start = System.nanoTime();
                    ByteArrayOutputStream out = new ByteArrayOutputStream(1 << 23);
                    try (GZIPOutputStream zipped = gzip(out, level)) {
                        zipped.write(body);
                    }
                    times[i] = System.nanoTime() - start;
                    size = out.size();
                }
                levelMedians[index++] = median(times);
                System.out.printf("gzip %s of the %,d-byte body: median %.0f ms, %,d bytes%n",
                        level == java.util.zip.Deflater.BEST_SPEED ? "fastest level" : "default level", body.length,
                        median(times) / 1e6, size);
            }
            System.out.printf("gzip: fastest level takes %.2f of the default level's time%n",
                    (double) levelMedians[1] / levelMedians[0]);

            // The same snapshots written by one library writer call, as before segments: the reference.
            long[] whole = new long[3];
            for (int i = 0; i < whole.length; i++) {
                long start = System.nanoTime();
                CountingStream out = new CountingStream();
                ExpositionFormat.PROMETHEUS_TEXT.writer().write(out,
                        AllocationMetrics.snapshots(ledger.view()));
                whole[i] = System.nanoTime() - start;
            }
            System.out.printf("reference: one writer call over all snapshots (no segments, no cache): median %.0f ms; "
                    + "cold render takes %.2f of it%n", median(whole) / 1e6, (double) median(cold) / median(whole));

            // The render cache for one format, then for both (alike segments are kept once).
            body = null;
            role.forget();
            long heapEmpty = usedHeapAfterGc();
            render(role, ExpositionFormat.OPENMETRICS_TEXT, true);
            long heapOne = usedHeapAfterGc();
            render(role, ExpositionFormat.PROMETHEUS_TEXT, true);
            long heapBoth = usedHeapAfterGc();
            System.out.printf("render cache: %.1f MiB for OpenMetrics alone, %.1f MiB with Prometheus text too "
                            + "(segments alike in both formats kept once)%n", (heapOne - heapEmpty) / 1048576.0,
                    (heapBoth - heapEmpty) / 1048576.0);
        }

        // A scrape when nothing changed, over HTTP: served from the last rendering. Prometheus asks
        // for gzip; both encodings are measured.
        WebServer server = Servers.serve("127.0.0.1:0", role);
        HttpClient client = HttpClient.newHttpClient();
        URI metrics = URI.create("http://127.0.0.1:" + server.port() + "/metrics");

        // What Prometheus sees after pod events: its own request (OpenMetrics first, gzip) over HTTP.
        HttpRequest prometheus = HttpRequest.newBuilder(metrics)
                .header("Accept", PROMETHEUS_ACCEPT)
                .header("Accept-Encoding", "gzip")
                .build();
        role.forget();
        long firstStart = System.nanoTime();
        client.send(prometheus, HttpResponse.BodyHandlers.discarding());
        System.out.printf("Prometheus scrape over HTTP (OpenMetrics, gzip) with nothing kept (the first after "
                + "start): %.0f ms%n", (System.nanoTime() - firstStart) / 1e6);
        // The first scrape after ready when readiness waits for the first rendering: what is kept
        // then is the segments, rendered and compressed; the scrape joins them.
        role.forget();
        render(role, ExpositionFormat.OPENMETRICS_TEXT, true);
        ledger.putPod(pod(1, nodes, cardsPerNode, 4095));
        long readyStart = System.nanoTime();
        client.send(prometheus, HttpResponse.BodyHandlers.discarding());
        System.out.printf("Prometheus scrape over HTTP (OpenMetrics, gzip), the first after a rendering done before "
                + "ready: %.0f ms   target <= 1000 ms%n", (System.nanoTime() - readyStart) / 1e6);
        // Twice: first the scrapes right after start, while the JIT has compiled little of the
        // render after events; then, after those, the same again with warm code, as a scheduler
        // that has run for a while (scraped every 15-60 s) is scraped.
        int sequence = 1_000_000;
        for (String phase : new String[] {"right after start", "warm"}) {
            for (int changed : new int[] {1, 100, 1_000}) {
                long[] after = new long[phase.equals("warm") ? 15 : 9];
                int size = 0;
                for (int i = 0; i < after.length; i++) {
                    sequence = changePods(ledger, changed, sequence, nodes, cardsPerNode, containers);
                    if (byCurl) {
                        CurlScrape scrape = curlScrape(metrics);
                        after[i] = scrape.nanos();
                        size = (int) scrape.bytes();
                        continue;
                    }
                    long start = System.nanoTime();
                    HttpResponse<byte[]> response = client.send(prometheus, HttpResponse.BodyHandlers.ofByteArray());
                    after[i] = System.nanoTime() - start;
                    if (response.statusCode() != 200) {
                        throw new IllegalStateException("scrape answered " + response.statusCode());
                    }
                    size = response.body().length;
                }
                System.out.printf("Prometheus scrape %s (OpenMetrics, gzip) after %,d pod event(s), %s (%,d bytes): "
                        + "median %.0f ms, max %.0f ms over %d   target <= %d ms%n",
                        byCurl ? "by curl (another process)" : "over HTTP", changed, phase, size,
                        median(after) / 1e6, Arrays.stream(after).max().orElseThrow() / 1e6, after.length,
                        changed == 1 ? 50 : 300);
                if (peer != null) {
                    System.out.printf("   against peer-hami-go's scrape (%.0f ms, text, in process): %.2fx%n",
                            peer.medianSeconds() * 1000, median(after) / 1e9 / peer.medianSeconds());
                }
            }
        }
        // The same scrapes by curl, another process as Prometheus is: the in-process client above
        // reads each 7.9 MB body into arrays of the server's own heap and on its cores. curl's own
        // time_total (the request sent to the last byte read; the body not inflated).
        if (!byCurl && curlRuns()) {
            for (int changed : new int[] {0, 1, 1_000}) {
                long[] after = new long[15];
                long size = 0;
                for (int i = 0; i < after.length; i++) {
                    if (changed > 0) {
                        sequence = changePods(ledger, changed, sequence, nodes, cardsPerNode, containers);
                    }
                    CurlScrape scrape = curlScrape(metrics);
                    after[i] = scrape.nanos();
                    size = scrape.bytes();
                }
                System.out.printf("Prometheus scrape by curl (another process; OpenMetrics, gzip) %s, warm (%,d bytes): "
                                + "median %.1f ms, max %.1f ms over %d   target <= %d ms%n",
                        changed == 0 ? "with nothing changed" : String.format("after %,d pod event(s)", changed), size,
                        median(after) / 1e6, Arrays.stream(after).max().orElseThrow() / 1e6, after.length,
                        changed == 0 ? 100 : changed == 1 ? 50 : 300);
            }
        } else if (!byCurl) {
            System.out.println("curl not found: the scrapes by another process are not measured");
        }
        // The identity body (68 MB) is for humans with curl; measured only outside "deployed" runs,
        // where the in-process client's own copy of it would count against the server's heap.
        for (boolean gzip : deployed ? new boolean[] {true} : new boolean[] {true, false}) {
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
        int events = 200_000;
        long start = System.nanoTime();
        for (int i = 0; i < events; i++) {
            ledger.putPod(pod(i % containers, nodes, cardsPerNode, (i & 1) == 0 ? 2048 : 4096));
        }
        long eventNanos = System.nanoTime() - start;
        System.out.printf("one pod event (Ledger.putPod of a changed pod): %.2f us averaged over %,d   "
                + "target <= 50 us%n", eventNanos / 1e3 / events, events);
        System.out.printf("heap after GC, ledger and render cache of the formats scraped: %.1f MiB of a maximum %.0f "
                + "MiB   target <= 256 MiB%n", (usedHeapAfterGc() - heapBefore) / 1048576.0,
                Runtime.getRuntime().maxMemory() / 1048576.0);
    }

    /** HAMi's collector pattern over the same ledger shape, run before this benchmark: its median and bytes. */
    record Peer(double medianSeconds, long bytes) {
        static Peer run(int nodes, int cardsPerNode, int containers) throws Exception {
            String binary = System.getenv("PEER_HAMI_GO");
            if (binary == null || binary.isEmpty()) {
                return null;
            }
            Process process = new ProcessBuilder(binary, Integer.toString(nodes), Integer.toString(cardsPerNode),
                    Integer.toString(containers), "5").redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            if (process.waitFor() != 0) {
                throw new IllegalStateException("peer-hami-go failed: " + output);
            }
            java.util.regex.Matcher median = java.util.regex.Pattern.compile("median ([0-9.]+) s .* ([0-9]+) bytes")
                    .matcher(output);
            if (!median.find()) {
                throw new IllegalStateException("peer-hami-go printed no median: " + output);
            }
            Peer peer = new Peer(Double.parseDouble(median.group(1)), Long.parseLong(median.group(2)));
            System.out.printf("peer-hami-go %d %d %d 5 (HAMi's collector pattern, text, in process): median %.0f ms, "
                    + "%,d bytes%n", nodes, cardsPerNode, containers, peer.medianSeconds() * 1000, peer.bytes());
            return peer;
        }
    }

    /**
     * A source that loads {@code nodes} × {@code cardsPerNode} cards and {@code containers}
     * one-container pods spread over them, and puts the ledger it fills into {@code holder}.
     */
    static SchedulerLedgerSource syntheticLedger(int nodes, int cardsPerNode, int containers, Ledger[] holder) {
        return new SchedulerLedgerSource() {
            @Override
            public void start(Ledger ledger, SkipReporter skips) {
                holder[0] = ledger;
                for (int n = 0; n < nodes; n++) {
                    NodeKind kind = NodeKind.of(n);
                    List<VendorCard> cards = new ArrayList<>();
                    for (int c = 0; c < cardsPerNode; c++) {
                        cards.add(new VendorCard(new RegisteredCard(uuid(n, c), c, 10, kind.memoryMib, kind.cores,
                                kind.type, c / 4, CardMode.HAMI_CORE, true), kind.backend, kind.units));
                    }
                    ledger.putVendorCards(String.format("gpu-node-%04d", n), cards);
                }
                for (int p = 0; p < containers; p++) {
                    ledger.putPod(pod(p, nodes, cardsPerNode, 4096));
                }
                ledger.markSynced(System.currentTimeMillis());
            }

            @Override
            public void close() {
            }
        };
    }

    /** Times of renders with nothing kept (Prometheus text), and the exposition's size. */
    record ColdRenders(long[] nanos, long bytes) {
    }

    static ColdRenders coldRenders(Rendering role, int runs) throws Exception {
        long[] nanos = new long[runs];
        long bytes = 0;
        for (int i = 0; i < runs; i++) {
            role.forget();
            long start = System.nanoTime();
            bytes = render(role, ExpositionFormat.PROMETHEUS_TEXT, false);
            nanos[i] = System.nanoTime() - start;
        }
        return new ColdRenders(nanos, bytes);
    }

    /**
     * The scheduler role's exposition, as {@code AllocationRole.collect} makes it, over the benchmark's
     * ledger, with a render cache the benchmark starts afresh to time what a role with nothing kept
     * does (a cold render, the first scrape after start). The heap it holds is its render cache's.
     */
    static final class Rendering implements MetricsSource {
        private final Ledger ledger;
        private final Shard shard;
        private final BuildInfo build = BuildInfo.current();
        private final SkipCounter skips = new SkipCounter();
        private final SourceHealth health = new SourceHealth();
        private final FamilySelection selection;
        private volatile RenderCache cache = new RenderCache();

        Rendering(Ledger ledger) {
            this(ledger, Shard.ALL);
        }

        /** {@code shard}'s part of the view, as a sharded role renders it. */
        Rendering(Ledger ledger, Shard shard) {
            this(ledger, shard, AllocationMetrics.DEFAULT_SELECTION);
        }

        /** The families {@code selection} keeps of {@code shard}'s part of the view. */
        Rendering(Ledger ledger, Shard shard, FamilySelection selection) {
            this.ledger = ledger;
            this.shard = shard;
            this.selection = selection;
        }

        void forget() {
            cache = new RenderCache();
        }

        @Override
        public Optional<Object> stateStamp() {
            return Optional.of(List.of(ledger.freshness(), skips.changes()));
        }

        @Override
        public Exposition collect() {
            long started = System.nanoTime();
            Ledger.StampedView stamped = ledger.stampedView();
            AllocationView view = stamped.view();
            health.record(AllocationRole.SOURCE, view.freshness().synced(), System.nanoTime() - started, null);
            return AllocationMetrics.exposition(view, stamped.stamps(), shard, FamilyDecorator.NONE,
                    ContainerSeries.POD_EFFECTIVE, selection, cache, SelfMetrics.families(build, skips, health),
                    System.currentTimeMillis());
        }

        @Override
        public boolean ready() {
            return ledger.isSynced();
        }

        @Override
        public String notReadyReason() {
            return "not loaded";
        }
    }

    /**
     * This process's CPU time so far, every thread's (the collector's too), from Linux's
     * {@code /proc/self/stat} (user and system, in clock ticks of 10 ms): the module reads no
     * {@code jdk.management}.
     */
    static long processCpuNanos() throws java.io.IOException {
        String stat = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/self/stat"));
        // After the command's name in parentheses: the state first, utime and stime the 12th and 13th.
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) * 10_000_000L;
    }

    /** Renders as the endpoint does, into a stream that only counts; returns the size. */
    /**
     * Each family's bytes and sample lines in the exposition (OpenMetrics text) after {@code events}
     * pod events, and how many of those lines the events changed: a line counts as changed where
     * the exposition before them had no line equal to it.
     */
    private static void printChangedFamilies(Rendering role, Ledger ledger, int events, int nodes, int cardsPerNode,
                                             int containers) throws Exception {
        java.util.Set<String> before = new java.util.HashSet<>(sampleLines(role));
        changePods(ledger, events, 0, nodes, cardsPerNode, containers);
        java.util.Map<String, long[]> byFamily = new java.util.TreeMap<>(); // bytes, lines, changed lines
        for (String line : sampleLines(role)) {
            int end = line.indexOf('{');
            String family = end >= 0 ? line.substring(0, end) : line.substring(0, line.indexOf(' '));
            long[] counts = byFamily.computeIfAbsent(family, name -> new long[3]);
            counts[0] += line.length() + 1;
            counts[1]++;
            counts[2] += before.contains(line) ? 0 : 1;
        }
        System.out.printf("after %,d pod events (each a running pod's memory, 2,048 <-> 2,049 MiB):%n", events);
        byFamily.forEach((family, counts) -> System.out.printf("  %-52s %,12d bytes %,9d lines %,9d changed%n",
                family, counts[0], counts[1], counts[2]));
    }

    /** The exposition's sample lines, OpenMetrics text (the metadata and "# EOF" left out). */
    private static List<String> sampleLines(Rendering role) throws Exception {
        ByteArrayOutputStream text = new ByteArrayOutputStream();
        role.collect().write(text, ExpositionFormat.OPENMETRICS_TEXT);
        return text.toString(java.nio.charset.StandardCharsets.UTF_8).lines()
                .filter(line -> !line.startsWith("#")).toList();
    }

    static long render(MetricsSource role, ExpositionFormat format, boolean gzip) throws Exception {
        CountingStream out = new CountingStream();
        if (gzip) {
            // As the endpoint compresses: members, each segment's kept compressed.
            role.collect().writeGzip(out, format);
        } else {
            role.collect().write(out, format);
        }
        return out.count;
    }

    private static GZIPOutputStream gzip(java.io.OutputStream out, int level) throws java.io.IOException {
        return new GZIPOutputStream(out, 64 * 1024) {
            {
                def.setLevel(level);
            }
        };
    }

    static final class CountingStream extends java.io.OutputStream {
        long count;

        @Override
        public void write(int b) {
            count++;
        }

        @Override
        public void write(byte[] bytes, int offset, int length) {
            count += length;
        }
    }

    private static final String PROMETHEUS_ACCEPT = "application/openmetrics-text;version=1.0.0,"
            + "application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1";

    private static boolean curlRuns() {
        try {
            return new ProcessBuilder("curl", "--version").redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor() == 0;
        } catch (IOException | InterruptedException absent) {
            return false;
        }
    }

    /** A scrape by curl: its time from the request to the last byte read, and the bytes read (gzip, not inflated). */
    private record CurlScrape(long nanos, long bytes) {
    }

    /** One scrape by curl, as Prometheus asks. */
    private static CurlScrape curlScrape(URI metrics) throws IOException, InterruptedException {
        Process curl = new ProcessBuilder("curl", "-sS", "--max-time", "30", "-o", "/dev/null",
                "-H", "Accept: " + PROMETHEUS_ACCEPT, "-H", "Accept-Encoding: gzip",
                "-w", "%{http_code} %{time_total} %{size_download}", metrics.toString())
                .redirectErrorStream(true).start();
        String out = new String(curl.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.US_ASCII)
                .trim();
        String[] figures = out.split(" ");
        if (curl.waitFor() != 0 || figures.length != 3 || !figures[0].equals("200")) {
            throw new IllegalStateException("curl's scrape failed: " + out);
        }
        return new CurlScrape(Math.round(Double.parseDouble(figures[1]) * 1e9), Long.parseLong(figures[2]));
    }

    /**
     * Changes {@code events} pods, the next of a fixed walk over the containers from
     * {@code sequence} (a stride of 7,919 spreads them over the nodes, a memory that alternates
     * makes each a change); returns where the walk goes on.
     */
    static int changePods(Ledger ledger, int events, int sequence, int nodes, int cardsPerNode, int containers) {
        for (int c = 0; c < events; c++) {
            int p = (int) (sequence++ * 7919L % containers); // long: the product passes 2^31
            ledger.putPod(pod(p, nodes, cardsPerNode, 2048 + (sequence & 1)));
        }
        return sequence;
    }

    static PodPlacement pod(int p, int nodes, int cardsPerNode, long memoryMib) {
        int node = p % nodes;
        int card = (p / nodes) % cardsPerNode;
        PodRef ref = new PodRef("team-" + (p % 50), "job-" + p, String.format("%08x-0000-4000-8000-%012x", p, p));
        ContainerShares container = new ContainerShares(0, "worker", false,
                List.of(new DeviceShare(uuid(node, card), NodeKind.of(node).shareType, memoryMib, 10)));
        return new PodPlacement(ref, String.format("gpu-node-%04d", node), PodPhase.RUNNING, true, List.of(container));
    }

    /** Random-looking like real card UUIDs (deterministic, so runs compare). */
    /**
     * A mixed fleet: 60% NVIDIA nodes, 20% Ascend, 10% Hygon DCU, 10% AMD (whose core series HAMi
     * normalises per card, so every pod segment's key holds those cards).
     */
    enum NodeKind {
        NVIDIA("NVIDIA", "NVIDIA H100 80GB HBM3", "NVIDIA", 81559, 100, DeviceUnits.MIB_AND_PERCENT),
        ASCEND("Ascend910B3", "Ascend910B3", "Ascend910B3", 65536, 20,
                new DeviceUnits(MemoryUnit.MIB, CoreUnit.AI_CORES)),
        HYGON("DCU", "K100_AI", "DCU", 65520, 100, DeviceUnits.MIB_AND_PERCENT),
        AMD("AMD", "AMD Instinct MI300X VF", "AMD Instinct MI300X VF", 196608, 304,
                new DeviceUnits(MemoryUnit.MIB, CoreUnit.COMPUTE_UNITS));

        final String backend;
        final String type;
        final String shareType;
        final long memoryMib;
        final long cores;
        final DeviceUnits units;

        NodeKind(String backend, String type, String shareType, long memoryMib, long cores, DeviceUnits units) {
            this.backend = backend;
            this.type = type;
            this.shareType = shareType;
            this.memoryMib = memoryMib;
            this.cores = cores;
            this.units = units;
        }

        static NodeKind of(int node) {
            int tenth = node % 10;
            return tenth < 6 ? NVIDIA : tenth < 8 ? ASCEND : tenth < 9 ? HYGON : AMD;
        }
    }

    static String uuid(int node, int card) {
        return "GPU-" + java.util.UUID.nameUUIDFromBytes((node + "/" + card).getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    static long usedHeapAfterGc() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(100);
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    static long min(long[] values) {
        return Arrays.stream(values).min().orElseThrow();
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
