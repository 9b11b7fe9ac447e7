package io.hamiobserve.demo;

import io.hamiobserve.edge.Servers;
import io.hamiobserve.role.console.ConsoleRole;
import at.favre.lib.crypto.bcrypt.BCrypt;
import io.hamiobserve.edge.http.EdgeConfig;
import io.hamiobserve.edge.http.WebConfig;
import io.hamiobserve.app.metrics.BuildInfo;
import io.hamiobserve.console.Console;
import io.hamiobserve.console.ConsoleSettings;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.Base64;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The console mounted on a server of the endpoints' edge: basic auth, methods and bodies apply to its pages too. */
class ConsoleEdgeTest {
    private Servers.Served served;

    @AfterEach
    void stop() {
        if (served != null) {
            served.stop();
        }
    }

    @Test
    void theConsoleSitsBehindTheSameEdgeAsTheEndpoints() throws Exception {
        Path config = Files.createTempFile("web-config", ".yml");
        Files.writeString(config, "basic_auth_users:\n  viewer: '"
                + BCrypt.withDefaults().hashToString(4, "s3cret".toCharArray()) + "'\n");
        EdgeConfig edge = EdgeConfig.defaults().withWeb(Optional.of(WebConfig.read(config)));
        Files.delete(config);
        ConsoleRole role = new ConsoleRole(BuildInfo.current());
        Console console = Console.create(role.observe(new DemoFleetHistory(new DemoHistory(DemoCluster.standard(),
                Instant.now()))), ConsoleSettings.defaults().withRoutePrefix("/gpu"), Clock.systemUTC());
        served = Servers.serve("127.0.0.1:0", role, edge, console::routing);
        String base = "http://127.0.0.1:" + served.port();
        HttpClient client = HttpClient.newHttpClient();
        String auth = "Basic " + Base64.getEncoder().encodeToString("viewer:s3cret".getBytes(StandardCharsets.UTF_8));

        assertEquals(401, client.send(HttpRequest.newBuilder(URI.create(base + "/gpu/")).build(),
                HttpResponse.BodyHandlers.ofString()).statusCode(), "no page without credentials");
        HttpResponse<String> page = client.send(HttpRequest.newBuilder(URI.create(base + "/gpu/cards"))
                .header("Authorization", auth).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, page.statusCode());
        assertTrue(page.headers().firstValue("Content-Security-Policy").isPresent());
        assertTrue(page.body().contains("Demo without Prometheus") || page.body().contains("simulation"), page.body());
        assertEquals(405, client.send(HttpRequest.newBuilder(URI.create(base + "/gpu/cards")).header("Authorization",
                auth).POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString())
                .statusCode(), "read-only: only GET and HEAD");
        assertEquals(200, client.send(HttpRequest.newBuilder(URI.create(base + "/healthz")).build(),
                HttpResponse.BodyHandlers.ofString()).statusCode(), "probes stay open");
        String metrics = client.send(HttpRequest.newBuilder(URI.create(base + "/metrics")).header("Authorization",
                auth).build(), HttpResponse.BodyHandlers.ofString()).body();
        assertTrue(metrics.contains("hami_observe_scrape_source_success{source=\"prometheus\"} 1.0"), metrics);
    }
}
