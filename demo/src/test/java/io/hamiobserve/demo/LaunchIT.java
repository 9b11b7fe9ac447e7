package io.hamiobserve.demo;

import io.hamiobserve.exposition.testing.Promtool;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Starts the app exactly as users do, through {@code bin/hami-observe} on the module path
 * ({@code java -p ... -m ...}), scrapes every endpoint and stops it. This is the only check that
 * catches a module the module-info files forgot to require: the unit tests run on the class path.
 */
class LaunchIT {
    private static final Path ROOT = Path.of(System.getProperty("project.root", "..")).toAbsolutePath().normalize();
    private static final Pattern ENDPOINT = Pattern.compile("curl (http://localhost:\\d+)/metrics");

    private static ProcessBuilder launcher(String... args) {
        List<String> command = new ArrayList<>();
        command.add(ROOT.resolve("bin/hami-observe").toString());
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).directory(ROOT.toFile());
        builder.environment().put("HAMI_OBSERVE_NO_BUILD", "1");
        return builder;
    }

    @Test
    void demoServesBothViewsOnTheModulePath() throws Exception {
        Path log = Files.createTempFile("hami-observe-launch", ".log");
        // The console and its Prometheus have their own launch test (ConsoleBrowserIT).
        Process app = launcher("demo", "--console-bind-address", "127.0.0.1:0", "--demo.prometheus", "off",
                "--allocation-bind-address", "127.0.0.1:0", "--usage-bind-address",
                "127.0.0.1:0", "--demo-second-node-bind-address", "127.0.0.1:0")
                .redirectError(log.toFile())
                .start();
        try {
            List<String> endpoints = new ArrayList<>();
            BufferedReader out = new BufferedReader(new InputStreamReader(app.getInputStream(), StandardCharsets.UTF_8));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            String line;
            while (endpoints.size() < 3 && System.nanoTime() < deadline && (line = out.readLine()) != null) {
                Matcher matcher = ENDPOINT.matcher(line);
                if (matcher.find()) {
                    endpoints.add(matcher.group(1));
                }
            }
            assertEquals(3, endpoints.size(), "the demo printed its three endpoints; stderr:\n" + Files.readString(log));

            HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
            String allocation = scrape(client, endpoints.get(0) + "/metrics");
            assertTrue(allocation.contains("hami_gpu_memory_allocated_bytes{"), allocation);
            assertTrue(allocation.contains("hami_vgpu_memory_allocated_bytes{"), allocation);
            Promtool.assertClean(allocation);
            for (String usageEndpoint : endpoints.subList(1, 3)) {
                String usage = scrape(client, usageEndpoint + "/metrics");
                assertTrue(usage.contains("hami_vgpu_memory_used_bytes{"), usage);
                assertTrue(usage.contains("hami_host_gpu_memory_used_bytes{"), usage);
                assertTrue(usage.contains("hami_observe_scrape_source_success{source=\"cachefile\"} 1.0"), usage);
                Promtool.assertClean(usage);
                assertEquals("ready\n", scrape(client, usageEndpoint + "/readyz"));
            }
            awaitRenderedAhead(client, endpoints.get(0) + "/readyz");
        } finally {
            app.destroy();
            assertTrue(app.waitFor(10, TimeUnit.SECONDS), "the app stops within 10 s of SIGTERM");
        }
        String stderr = Files.readString(log);
        assertTrue(!stderr.contains("Exception"), "no exception on stderr:\n" + stderr);
    }

    @Test
    void schedulerReadsASnapshotOnTheModulePath() throws Exception {
        Path snapshot = ROOT.resolve("adapters-k8s/src/test/resources/cluster-snapshot.yaml");
        Path log = Files.createTempFile("hami-observe-snapshot", ".log");
        Process app = launcher("scheduler", "--snapshot", snapshot.toString(), "--once").redirectError(log.toFile()).start();
        String exposition = new String(app.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(app.waitFor(60, TimeUnit.SECONDS), "scheduler --once finishes");
        assertEquals(0, app.exitValue(), "exit code; stderr:\n" + Files.readString(log));
        assertTrue(exposition.contains("hami_gpu_memory_allocated_bytes{"), exposition);
        assertTrue(exposition.contains("hami_observe_ledger_synced 1.0"), exposition);
        Promtool.assertClean(exposition);
    }

    @Test
    void schedulerServesASnapshotReadBesideItsServer() throws Exception {
        Path snapshot = ROOT.resolve("adapters-k8s/src/test/resources/cluster-snapshot.yaml");
        Path log = Files.createTempFile("hami-observe-snapshot", ".log");
        Process app = launcher("scheduler", "--snapshot", snapshot.toString(), "--metrics-bind-address", "127.0.0.1:0")
                .redirectError(log.toFile()).start();
        try {
            String line = new BufferedReader(new InputStreamReader(app.getInputStream(), StandardCharsets.UTF_8)).readLine();
            assertTrue(line != null && line.contains("allocation view on :"), "printed its endpoint: " + line
                    + "\nstderr:\n" + Files.readString(log));
            String base = "http://localhost:" + line.replaceAll(".*:(\\d+)/metrics.*", "$1");
            HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
            // Answered from the first request on; the snapshot's cards once the ledger says synced.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            String metrics = scrape(client, base + "/metrics");
            while (!metrics.contains("hami_observe_ledger_synced 1.0") && System.nanoTime() < deadline) {
                assertTrue(metrics.contains("hami_observe_ledger_synced 0.0"), metrics);
                Thread.sleep(20);
                metrics = scrape(client, base + "/metrics");
            }
            assertTrue(metrics.contains("hami_gpu_memory_allocated_bytes{"), metrics);
            awaitRenderedAhead(client, base + "/readyz");
            Promtool.assertClean(metrics);
        } finally {
            app.destroy();
            assertTrue(app.waitFor(10, TimeUnit.SECONDS), "the scheduler stops within 10 s of SIGTERM");
        }
    }

    @Test
    void schedulerWithAnUnreadableSnapshotStopsWithTheReason() throws Exception {
        Path missing = Files.createTempDirectory("hami-observe-snapshot").resolve("missing.yaml");
        Path log = Files.createTempFile("hami-observe-snapshot", ".log");
        Process app = launcher("scheduler", "--snapshot", missing.toString(), "--metrics-bind-address", "127.0.0.1:0")
                .redirectError(log.toFile()).start();
        assertTrue(app.waitFor(60, TimeUnit.SECONDS), "the scheduler stops on its own");
        String stderr = Files.readString(log);
        assertEquals(2, app.exitValue(), stderr);
        assertTrue(stderr.lines().anyMatch(("hami-observe: snapshot " + missing + ": no such file")::equals), stderr);
    }

    @Test
    void schedulerOnceOnHostileInputOnTheModulePath() throws Exception {
        // The pod that used to make every allocation scrape fail with "long overflow", next to a good one.
        Path dump = Files.writeString(Files.createTempFile("hostile", ".yaml"), """
                apiVersion: v1
                kind: List
                items:
                - {kind: Node, metadata: {name: n1, annotations: {hami.io/node-nvidia-register: 'GPU-a,10,40960,100,T,0,true:'}}}
                - kind: Pod
                  metadata: {name: good, namespace: ml, uid: u1, labels: {hami.io/vgpu-node: n1},
                             annotations: {hami.io/vgpu-node: n1, hami.io/vgpu-devices-allocated: 'GPU-a,NVIDIA,1000,10:;'}}
                  spec: {containers: [{name: c}]}
                  status: {phase: Running}
                - kind: Pod
                  metadata: {name: blind, namespace: evil, uid: u2, labels: {hami.io/vgpu-node: n1},
                             annotations: {hami.io/vgpu-node: n1, hami.io/vgpu-devices-allocated: 'GPU-a,NVIDIA,9000000000000,10:;'}}
                  spec: {containers: [{name: c}]}
                  status: {phase: Running}
                """);
        Process app = launcher("scheduler", "--snapshot", dump.toString(), "--once").start();
        String exposition = new String(app.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String stderr = new String(app.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(app.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, app.exitValue(), stderr);
        assertTrue(exposition.contains("device_uuid=\"GPU-a\",node=\"n1\",zone=\"vGPU\"} 1.048576E9"), exposition);
        assertTrue(exposition.contains("hami_observe_skipped_inputs_total{kind=\"nvidia_pod\","
                + "reason=\"number_overflow\",source=\"kubernetes\"} 1.0"), exposition);
        Promtool.assertClean(exposition);

        Process notADump = launcher("scheduler", "--snapshot", "/dev/zero", "--once").start();
        String out = new String(notADump.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(notADump.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(notADump.waitFor(60, TimeUnit.SECONDS));
        assertEquals(2, notADump.exitValue(), err);
        assertEquals("", out);
        assertTrue(err.strip().endsWith("hami-observe: snapshot /dev/zero: not a regular file (a device, FIFO or "
                + "socket): expected a kubectl -o yaml or -o json dump"), err);
        assertTrue(!err.contains("Exception"), err);
    }

    @Test
    void nodeRoleWithoutDriverOrApiServerStillServes() throws Exception {
        Path hook = Files.createTempDirectory("hami-observe-hook");
        Files.createDirectories(hook.resolve("containers"));
        Path kubeconfig = Files.createTempFile("kubeconfig", ".yaml");
        Files.writeString(kubeconfig, """
                apiVersion: v1
                kind: Config
                clusters: [{name: nowhere, cluster: {server: "https://127.0.0.1:9"}}]
                users: [{name: nobody, user: {token: none}}]
                contexts: [{name: nowhere, context: {cluster: nowhere, user: nobody}}]
                current-context: nowhere
                """);
        Path log = Files.createTempFile("hami-observe-node", ".log");
        ProcessBuilder builder = launcher("node", "--metrics-bind-address", "127.0.0.1:0", "--nvml-library",
                "/nonexistent/libnvidia-ml.so.1").redirectError(log.toFile());
        builder.environment().put("NODE_NAME", "gpu-node-x");
        builder.environment().put("HOOK_PATH", hook.toString());
        builder.environment().put("KUBECONFIG", kubeconfig.toString());
        Process app = builder.start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(app.getInputStream(), StandardCharsets.UTF_8));
            String line = out.readLine();
            assertTrue(line != null && line.contains("usage view on :"), "printed its endpoint: " + line
                    + "\nstderr:\n" + Files.readString(log));
            String base = "http://localhost:" + line.replaceAll(".*:(\\d+)/metrics.*", "$1");
            HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
            String metrics = scrape(client, base + "/metrics");
            assertTrue(metrics.contains("hami_observe_scrape_source_success{source=\"nvml\"} 0.0"), metrics);
            assertTrue(metrics.contains("hami_observe_scrape_source_success{source=\"pods\"} 0.0"), metrics);
            assertTrue(metrics.contains("hami_observe_scrape_source_success{source=\"cachefile\"} 1.0"), metrics);
            Promtool.assertClean(metrics);
            HttpResponse<String> ready = client.send(HttpRequest.newBuilder(URI.create(base + "/readyz")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(503, ready.statusCode(), "not ready without the pod directory");
        } finally {
            app.destroy();
            assertTrue(app.waitFor(10, TimeUnit.SECONDS), "the node role stops within 10 s of SIGTERM");
        }
    }

    @Test
    void startupMistakesExitTwoWithOneLine() throws Exception {
        Path dir = Files.createTempDirectory("hami-observe-startup");
        Path web = dir.resolve("web.yml");
        Files.writeString(web, "tls_server_config:\n  cert_file: missing.crt\n  key_file: missing.key\n");
        try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            String busy = "127.0.0.1:" + taken.getLocalPort();
            String[][] cases = {
                {"hami-observe: cannot listen on " + busy + ": Address already in use", "demo", "--allocation-bind-address",
                    "127.0.0.1:0", "--usage-bind-address", busy, "--demo-second-node-bind-address", "127.0.0.1:0"},
                {"hami-observe: --web.max-header-bytes 10 is below 1024, the least that serves a Prometheus scrape "
                    + "request with basic auth", "scheduler", "--snapshot",
                    ROOT.resolve("adapters-k8s/src/test/resources/cluster-snapshot.yaml").toString(), "--web.max-header-bytes", "10",
                    "--metrics-bind-address", "127.0.0.1:0"},
                {"hami-observe: cert_file " + dir.resolve("missing.crt") + " does not exist", "demo", "--web.config.file",
                    web.toString(), "--allocation-bind-address", "127.0.0.1:0"},
                {"hami-observe: web config /dev/zero is not a regular file", "demo", "--web.config.file", "/dev/zero"},
            };
            for (String[] mistake : cases) {
                Path log = Files.createTempFile(dir, "stderr", ".log");
                Process app = launcher(java.util.Arrays.copyOfRange(mistake, 1, mistake.length))
                        .redirectError(log.toFile()).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
                boolean ended = app.waitFor(60, TimeUnit.SECONDS);
                if (!ended) {
                    app.destroyForcibly();
                }
                assertTrue(ended, "ended within 60 s: " + String.join(" ", mistake));
                assertEquals(2, app.exitValue(), Files.readString(log));
                assertEquals(mistake[0] + "\n", Files.readString(log), "one line on stderr");
            }
        }
    }

    /**
     * Waits up to 30 s for an allocation endpoint's {@code /readyz} to answer ready. The role is
     * ready once its synced ledger's exposition is rendered ahead, which a loaded machine may finish
     * after a scrape already saw the ledger synced; the only other answer allowed meanwhile is that
     * one. Polled, as a kubelet does.
     */
    private static void awaitRenderedAhead(HttpClient client, String readyz) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        HttpResponse<String> readiness = probe(client, readyz);
        while (readiness.statusCode() != 200 && System.nanoTime() < deadline) {
            assertEquals("not ready: rendering the exposition ahead of the first scrape\n", readiness.body(), readyz);
            Thread.sleep(20);
            readiness = probe(client, readyz);
        }
        assertEquals(200, readiness.statusCode(), readyz + ": " + readiness.body());
        assertEquals("ready\n", readiness.body());
    }

    private static HttpResponse<String> probe(HttpClient client, String url) throws IOException, InterruptedException {
        return client.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static String scrape(HttpClient client, String url) throws IOException, InterruptedException {
        HttpResponse<String> response = probe(client, url);
        assertEquals(200, response.statusCode(), url + ": " + response.body());
        return response.body();
    }
}
