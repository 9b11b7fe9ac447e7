package io.hamiobserve.demo;

import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code hami-observe demo --demo.clusters east,west}, launched as users launch it: two simulated
 * clusters' exporters, all scraped by the demo's one Prometheus under their cluster labels, and the
 * console over it offering both clusters in its selector.
 */
class DemoClustersIT {
    private static final Path ROOT = Path.of(System.getProperty("project.root", "..")).toAbsolutePath().normalize();
    private static final Pattern CONSOLE = Pattern.compile("web console:\\s+(http://localhost:\\d+\\S*)");
    private static final Pattern PROMETHEUS = Pattern.compile("local Prometheus:\\s+(http://\\S+)");

    @Test
    void twoClustersAreScrapedUnderTheirLabelsAndOfferedInTheSelector() throws Exception {
        Path log = Files.createTempFile("hami-observe-demo-clusters", ".log");
        ProcessBuilder builder = new ProcessBuilder(ROOT.resolve("bin/hami-observe").toString(), "demo",
                "--demo.clusters", "east,west", "--allocation-bind-address", "127.0.0.1:0", "--usage-bind-address",
                "127.0.0.1:0", "--demo-second-node-bind-address", "127.0.0.1:0", "--console-bind-address",
                "127.0.0.1:0").directory(ROOT.toFile()).redirectError(log.toFile());
        builder.environment().put("HAMI_OBSERVE_NO_BUILD", "1");
        Process demo = builder.start();
        try {
            StringBuilder printed = new StringBuilder();
            String console = null;
            String prometheus = null;
            BufferedReader out = new BufferedReader(new InputStreamReader(demo.getInputStream(),
                    StandardCharsets.UTF_8));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            String line;
            while (console == null && System.nanoTime() < deadline && (line = out.readLine()) != null) {
                printed.append(line).append('\n');
                Matcher at = CONSOLE.matcher(line);
                if (at.find()) {
                    console = at.group(1);
                }
                Matcher local = PROMETHEUS.matcher(line);
                if (local.find()) {
                    prometheus = local.group(1);
                }
            }
            assertNotNull(console, "the demo printed its console:\n" + printed + "\nstderr:\n" + Files.readString(log));
            assertNotNull(prometheus, "the demo started its own Prometheus:\n" + printed);
            assertTrue(printed.toString().contains("a simulated cluster (east) with GPU nodes"), printed.toString());
            assertTrue(printed.toString().contains("cluster west (the same nodes and pods, its own exporters): "
                    + "scheduler on :"), printed.toString());
            // The rest of what the demo prints is read, so a full pipe never blocks it.
            Thread.ofPlatform().daemon().start(() -> out.lines().forEach(rest -> { }));

            HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
            // Each cluster's seven targets answer its scrapes, labelled with its name.
            String api = prometheus.replaceAll("/$", "") + "/api/v1/query?query=";
            String perCluster = "";
            for (int wait = 0; wait < 60 && !(sevenUp(perCluster, "east") && sevenUp(perCluster, "west")); wait++) {
                Thread.sleep(wait == 0 ? 0 : 1000);
                perCluster = get(client, api + URLEncoder.encode("count by (cluster) (up == 1)",
                        StandardCharsets.UTF_8));
            }
            assertTrue(sevenUp(perCluster, "east") && sevenUp(perCluster, "west"), perCluster);
            // Five jobs (scheduler, node, dcgm-exporter and the Ascend node's two) in each of the two clusters.
            String perJob = get(client, api + URLEncoder.encode("count by (cluster, job) (up)",
                    StandardCharsets.UTF_8));
            assertEquals(5, countOf(perJob, "\"cluster\":\"east\""), perJob);
            assertEquals(5, countOf(perJob, "\"cluster\":\"west\""), perJob);

            // The console over it offers both clusters in its selector.
            Pattern selector = Pattern.compile("<nav class=\"choices\" aria-label=\"Cluster\">.*?</nav>",
                    Pattern.DOTALL);
            String choices = "";
            String page = "";
            for (int wait = 0; wait < 30 && !(choices.contains(">east</a>") && choices.contains(">west</a>")); wait++) {
                Thread.sleep(wait == 0 ? 0 : 1000);
                page = get(client, console);
                Matcher found = selector.matcher(page);
                choices = found.find() ? found.group() : "";
            }
            assertTrue(choices.contains(">All</a>") && choices.contains("cluster=east\">east</a>")
                    && choices.contains("cluster=west\">west</a>"), "the cluster selector: " + choices + "\n" + page);
            // The nodes of all: each cluster's node-a its own row, on its own cards, opening its cluster's.
            String nodes = get(client, console + "/nodes?export=nodes.csv");
            assertTrue(nodes.lines().anyMatch(row -> row.startsWith("east," + DemoCluster.NODE_A + ",4,"))
                    && nodes.lines().anyMatch(row -> row.startsWith("west," + DemoCluster.NODE_A + ",4,")), nodes);
            assertFalse(nodes.contains("east, west"), nodes);
            String nodesPage = get(client, console + "/nodes");
            assertTrue(nodesPage.contains("node?name=" + DemoCluster.NODE_A + "&amp;cluster=west\""), nodesPage);
        } finally {
            demo.destroy();
            if (!demo.waitFor(20, TimeUnit.SECONDS)) {
                demo.destroyForcibly();
            }
            Files.deleteIfExists(log);
        }
    }

    private static String get(HttpClient client, String url) throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }

    /** Whether {@code answer} says all seven of {@code cluster}'s targets are up. */
    private static boolean sevenUp(String answer, String cluster) {
        return Pattern.compile("\\{\"cluster\":\"" + cluster + "\"},\"value\":\\[[0-9.]+,\"7\"]")
                .matcher(answer).find();
    }

    private static int countOf(String text, String part) {
        int found = 0;
        for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + 1)) {
            found++;
        }
        return found;
    }
}
