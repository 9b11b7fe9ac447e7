package io.hamiobserve.demo;

import io.hamiobserve.exposition.testing.Promtool;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Each role of {@code images/roles} launched on its own module path, as its image runs it: the jars
 * of its Maven modules' {@code target/modules} and nothing else. The commands its modules bring are
 * there and the others are not; the modules another role needs are absent; and it serves. The
 * module graph resolving at all is the first check: a module a role needs and its path lacks ends
 * the launch.
 */
class RoleLaunchIT {
    private static final Path ROOT = Path.of(System.getProperty("project.root", "..")).toAbsolutePath().normalize();
    private static final Pattern SERVED = Pattern.compile("on :(\\d+)");
    private static final String JAVA = ProcessHandle.current().info().command().orElse("java");

    @TempDir
    Path scratch;

    /** The Maven modules of each role, and its main, as images/roles states them. */
    private record Role(List<String> modules, String main) {
    }

    private static Map<String, Role> roles() throws IOException {
        Map<String, Role> roles = new LinkedHashMap<>();
        for (String line : Files.readAllLines(ROOT.resolve("images/roles"))) {
            if (line.isBlank() || line.strip().startsWith("#")) {
                continue;
            }
            String[] fields = line.strip().split("\\s+");
            roles.put(fields[0], new Role(List.of(fields[1].split(",")), fields[2]));
        }
        return roles;
    }

    /** The role's module path: its modules' jars in one directory, as bin/jlink-images assembles it. */
    private Path modulePath(String name) throws IOException {
        Path path = Files.createDirectories(scratch.resolve(name));
        for (String module : roles().get(name).modules()) {
            try (var jars = Files.list(ROOT.resolve(module).resolve("target/modules"))) {
                for (Path jar : jars.filter(jar -> jar.toString().endsWith(".jar")).toList()) {
                    Path target = path.resolve(jar.getFileName());
                    if (!Files.exists(target)) {
                        Files.copy(jar, target);
                    }
                }
            }
        }
        return path;
    }

    private static Set<String> jars(Path modulePath) throws IOException {
        try (var jars = Files.list(modulePath)) {
            return new TreeSet<>(jars.map(jar -> jar.getFileName().toString()).toList());
        }
    }

    private static boolean holds(Set<String> jars, String artifact) {
        return jars.stream().anyMatch(jar -> jar.startsWith(artifact + "-"));
    }

    private ProcessBuilder launch(String role, Path modulePath, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(JAVA));
        if (holds(jars(modulePath), "jna")) {
            command.add("--enable-native-access=com.sun.jna");
        }
        command.addAll(List.of("-p", modulePath.toString(), "-m", roles().get(role).main()));
        command.addAll(List.of(args));
        return new ProcessBuilder(command).directory(ROOT.toFile());
    }

    private record Ended(int exit, String out, String err) {
    }

    private Ended run(String role, Path modulePath, String... args) throws Exception {
        Path err = Files.createTempFile(scratch, "err", ".log");
        Process process = launch(role, modulePath, args).redirectError(err.toFile()).start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "finished: " + String.join(" ", args));
        return new Ended(process.exitValue(), out, Files.readString(err));
    }

    /** Starts a serving command, waits for the line naming its port, scrapes {@code path} there, stops it. */
    private String serveAndScrape(ProcessBuilder launch, String path) throws Exception {
        return serveAndScrape(launch, path, Files.createTempFile(scratch, "err", ".log"));
    }

    /** As {@link #serveAndScrape(ProcessBuilder, String)}, the process's stderr written to {@code err}. */
    private String serveAndScrape(ProcessBuilder launch, String path, Path err) throws Exception {
        Process process = launch.redirectError(err.toFile()).start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8));
            String line;
            Matcher served = null;
            while ((line = out.readLine()) != null) {
                Matcher matcher = SERVED.matcher(line);
                if (matcher.find()) {
                    served = matcher;
                    break;
                }
            }
            assertTrue(served != null, "printed where it serves; stderr:\n" + Files.readString(err));
            HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + served.group(1) + path)).timeout(Duration.ofSeconds(20)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, response.statusCode(), response.body());
            return response.body();
        } finally {
            process.destroy();
            assertTrue(process.waitFor(10, TimeUnit.SECONDS), "stops within 10 s of SIGTERM");
        }
    }

    private static List<String> commands(String help) {
        List<String> commands = new ArrayList<>();
        boolean listed = false;
        for (String line : help.split("\n")) {
            if (line.startsWith("Commands:")) {
                listed = true;
            } else if (listed && line.startsWith("  ") && !line.startsWith("   ")) {
                commands.add(line.strip().split("\\s+")[0]);
            } else if (listed && line.isBlank()) {
                break;
            }
        }
        return commands;
    }

    @Test
    void theSchedulerImageHoldsTheAllocationViewAndTheConsoleAndNoNodeCode() throws Exception {
        Path path = modulePath("scheduler");
        Set<String> jars = jars(path);
        for (String needed : List.of("hami-observe-app", "hami-observe-role-scheduler", "hami-observe-role-console",
                "hami-observe-adapters-k8s", "hami-observe-adapters-prometheus", "hami-observe-console")) {
            assertTrue(holds(jars, needed), needed + " in " + jars);
        }
        for (String absent : List.of("jna", "hami-observe-adapters-nvml", "hami-observe-adapters-cachefile",
                "hami-observe-adapters-cachefile-layout", "hami-observe-role-node", "hami-observe-demo",
                "hami-observe-testkit", "kubernetes-model-gatewayapi", "kubernetes-model-networking")) {
            assertFalse(holds(jars, absent), absent + " in " + jars);
        }

        Ended help = run("scheduler", path, "--help");
        assertEquals(0, help.exit(), help.err());
        assertEquals(List.of("help", "scheduler", "console", "rightsize", "showback"), commands(help.out()), help.out());
        Ended node = run("scheduler", path, "node");
        assertEquals(2, node.exit());
        assertTrue(node.err().contains("unknown command 'node'"), node.err());

        Ended once = run("scheduler", path, "scheduler", "--snapshot",
                ROOT.resolve("adapters-k8s/src/test/resources/cluster-snapshot.yaml").toString(), "--once");
        assertEquals(0, once.exit(), once.err());
        assertTrue(once.out().contains("hami_gpu_memory_allocated_bytes{"), once.out());
        assertTrue(once.out().contains("hami_observe_ledger_synced 1.0"), once.out());
        Promtool.assertClean(once.out());

        // The console role serves its own endpoint, whether or not its Prometheus answers.
        String console = serveAndScrape(launch("scheduler", path, "console", "--prometheus", "http://127.0.0.1:1",
                "--console-bind-address", "127.0.0.1:0"), "/metrics");
        assertTrue(console.contains("hami_build_info{"), console);
    }

    @Test
    void aStartAskedForItsTimelinePrintsItOnceTheFirstScrapeIsAnswered() throws Exception {
        Path path = modulePath("scheduler");
        ProcessBuilder launch = launch("scheduler", path, "scheduler", "--snapshot",
                ROOT.resolve("adapters-k8s/src/test/resources/cluster-snapshot.yaml").toString(),
                "--metrics-bind-address", "127.0.0.1:0");
        launch.command().add(1, "-Dhami-observe.startup-timeline=true");
        Path err = Files.createTempFile(scratch, "err", ".log");

        serveAndScrape(launch, "/metrics", err);

        String timeline = Files.readString(err);
        // In the order of a start; the first collection and rendering may be the scrape's or the
        // rendering made ahead once the snapshot is read, both after the server listens.
        List<String> moments = List.of("JVM started", "main entered", "command line built (picocli)",
                "command parsed, role built", "web server listening");
        int at = timeline.indexOf("start-up timeline");
        assertTrue(at >= 0, timeline);
        for (String moment : moments) {
            int next = timeline.indexOf(moment, at);
            assertTrue(next > at, moment + " after the one before it in\n" + timeline);
            at = next;
        }
        for (String moment : List.of("first /metrics request", "first collection done", "first body rendered")) {
            assertTrue(timeline.indexOf(moment, at) > at, moment + " after the server listens in\n" + timeline);
        }
        assertTrue(timeline.indexOf("first /metrics answer written") > timeline.indexOf("first /metrics request"),
                timeline);
        assertEquals(1, timeline.split("start-up timeline", -1).length - 1, "printed once:\n" + timeline);
    }

    @Test
    void theNodeImageHoldsTheUsageViewAndNoAllocationOrConsoleCode() throws Exception {
        Path path = modulePath("node");
        Set<String> jars = jars(path);
        for (String needed : List.of("hami-observe-app", "hami-observe-role-node", "hami-observe-adapters-nvml",
                "jna", "hami-observe-adapters-cachefile", "hami-observe-adapters-cachefile-layout",
                "hami-observe-adapters-k8s")) {
            assertTrue(holds(jars, needed), needed + " in " + jars);
        }
        for (String absent : List.of("hami-observe-role-scheduler", "hami-observe-role-console",
                "hami-observe-console", "hami-observe-adapters-prometheus", "hami-observe-demo",
                "hami-observe-testkit", "jte-runtime", "commons-csv", "kubernetes-model-gatewayapi",
                "kubernetes-model-networking")) {
            assertFalse(holds(jars, absent), absent + " in " + jars);
        }

        Ended help = run("node", path, "--help");
        assertEquals(0, help.exit(), help.err());
        assertEquals(List.of("help", "node", "inspect-cache"), commands(help.out()), help.out());
        Ended scheduler = run("node", path, "scheduler");
        assertEquals(2, scheduler.exit());
        assertTrue(scheduler.err().contains("unknown command 'scheduler'"), scheduler.err());

        Path hook = Files.createDirectories(scratch.resolve("hook/containers")).getParent();
        Ended inspect = run("node", path, "inspect-cache", hook.resolve("containers").toString(), "--json");
        assertEquals(0, inspect.exit(), inspect.err());
        assertTrue(inspect.out().contains("\"containers_directory\""), inspect.out());

        // No driver and no API server here: NVML and the pod directory report failed, the cache
        // files (none yet) are read; the endpoint answers with a valid exposition.
        ProcessBuilder node = launch("node", path, "node", "--metrics-bind-address", "127.0.0.1:0");
        node.environment().put("NODE_NAME", "role-launch-node");
        node.environment().put("HOOK_PATH", hook.toString());
        String metrics = serveAndScrape(node, "/metrics");
        assertTrue(metrics.contains("hami_observe_scrape_source_success{source=\"cachefile\"} 1.0"), metrics);
        assertTrue(metrics.contains("hami_observe_scrape_source_success{source=\"nvml\"} 0.0"), metrics);
        Promtool.assertClean(metrics);
    }
}
