package io.hamiobserve.demo;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The demo removes its temporary HAMi-Core cache files however it is stopped, even while it is
 * being scraped as fast as clients can: launched as users launch it, scraped by several clients,
 * then sent SIGTERM or SIGINT (Ctrl-C).
 */
class DemoStopIT {
    private static final Path ROOT = Path.of(System.getProperty("project.root", "..")).toAbsolutePath().normalize();
    private static final Pattern ENDPOINT = Pattern.compile("curl (http://localhost:\\d+)/metrics");
    private static final Pattern CACHE_ROOT = Pattern.compile("HAMi-Core cache files written under (\\S+)");

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"TERM", "INT"})
    void theCacheFilesAreGoneAfterAStopUnderLoad(String signal) throws Exception {
        Path log = Files.createTempFile("hami-observe-demo-stop", ".log");
        try {
            stopUnderLoad(signal, log);
        } finally {
            Files.deleteIfExists(log);
        }
    }

    private void stopUnderLoad(String signal, Path log) throws Exception {
        // The week of history the demo writes for its Prometheus (tens of MB) is still being loaded
        // when it is stopped this early: its files must go too.
        Set<Path> historyBefore = historyFiles();
        ProcessBuilder builder = new ProcessBuilder(ROOT.resolve("bin/hami-observe").toString(), "demo",
                "--allocation-bind-address", "127.0.0.1:0", "--usage-bind-address", "127.0.0.1:0",
                "--demo-second-node-bind-address", "127.0.0.1:0").directory(ROOT.toFile()).redirectError(log.toFile());
        builder.environment().put("HAMI_OBSERVE_NO_BUILD", "1");
        Process demo = builder.start();
        List<String> endpoints = new ArrayList<>();
        Path cacheRoot = null;
        BufferedReader out = new BufferedReader(new InputStreamReader(demo.getInputStream(), StandardCharsets.UTF_8));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        String line;
        while ((endpoints.size() < 3 || cacheRoot == null) && System.nanoTime() < deadline
                && (line = out.readLine()) != null) {
            Matcher endpoint = ENDPOINT.matcher(line);
            if (endpoint.find()) {
                endpoints.add(endpoint.group(1));
            }
            Matcher root = CACHE_ROOT.matcher(line);
            if (root.find()) {
                cacheRoot = Path.of(root.group(1));
            }
        }
        assertEquals(3, endpoints.size(), "the demo printed its endpoints; stderr:\n" + Files.readString(log));
        assertTrue(cacheRoot != null && Files.isDirectory(cacheRoot), "the demo printed its cache directory");

        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger scrapes = new AtomicInteger();
        List<Thread> load = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            String url = endpoints.get(1 + i % 2) + "/metrics";
            Thread thread = Thread.ofPlatform().daemon().start(() -> {
                while (!stop.get()) {
                    try {
                        HttpResponse<Void> response = client.send(HttpRequest.newBuilder(URI.create(url))
                                .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.discarding());
                        if (response.statusCode() == 200) {
                            scrapes.incrementAndGet();
                        }
                    } catch (Exception stopped) {
                        // The demo is going away: that is the point.
                    }
                }
            });
            load.add(thread);
        }
        try {
            long loaded = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (scrapes.get() < 50 && System.nanoTime() < loaded) {
                Thread.sleep(20);
            }
            assertTrue(scrapes.get() >= 50, "the demo was scraped under load: " + scrapes.get());
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(demo.pid())).start();
            assertEquals(0, kill.waitFor());
            assertTrue(demo.waitFor(20, TimeUnit.SECONDS), "the demo stops within 20 s of SIG" + signal);
        } finally {
            stop.set(true);
            for (Thread thread : load) {
                thread.join(10_000);
            }
            demo.destroyForcibly();
        }
        assertFalse(Files.exists(cacheRoot), cacheRoot + " is removed after SIG" + signal + "; stderr:\n"
                + Files.readString(log));
        Set<Path> historyLeft = historyFiles();
        historyLeft.removeAll(historyBefore);
        assertEquals(Set.of(), historyLeft, "the demo's history files are removed after SIG" + signal);
    }

    /** The demo's history files in the temporary directory, which the demo's process shares. */
    private static Set<Path> historyFiles() throws IOException {
        try (Stream<Path> files = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
            return files.filter(file -> file.getFileName().toString().startsWith(DemoPrometheus.HISTORY_FILE_PREFIX))
                    .collect(Collectors.toCollection(HashSet::new));
        }
    }
}
