package io.hamiobserve.edge;

import io.hamiobserve.edge.testing.SampleSource;
import at.favre.lib.crypto.bcrypt.BCrypt;
import io.hamiobserve.edge.http.EdgeConfig;
import io.hamiobserve.edge.http.WebConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Unauthenticated bcrypt work cannot starve an authenticated scrape. */
class EdgeAuthTest {
    private static final int ATTACKERS = 40;
    private final List<Servers.Served> servers = new ArrayList<>();

    @AfterEach
    void stop() {
        servers.forEach(Servers.Served::stop);
    }

    private static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void fortyParallelWrongPasswordsDoNotHoldUpAValidScrape() throws Exception {
        // Cost 11: each wrong password holds a CPU for a good part of a second on a small machine.
        String hash = BCrypt.withDefaults().hashToString(11, "s3cret".toCharArray());
        Servers.Served served = Servers.serve("127.0.0.1:0", new SampleSource(), EdgeConfig.defaults()
                .withWeb(Optional.of(new WebConfig(Optional.empty(), Map.of("prometheus", hash)))));
        servers.add(served);
        URI metrics = URI.create("http://127.0.0.1:" + served.port() + "/metrics");
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        HttpRequest valid = HttpRequest.newBuilder(metrics).timeout(Duration.ofSeconds(30))
                .header("Authorization", basic("prometheus", "s3cret")).build();
        assertEquals(200, client.send(valid, HttpResponse.BodyHandlers.discarding()).statusCode(),
                "Prometheus's credentials, checked once and remembered");

        AtomicBoolean flooding = new AtomicBoolean(true);
        AtomicInteger attempts = new AtomicInteger();
        Map<Integer, AtomicInteger> statuses = new ConcurrentHashMap<>();
        List<Thread> attackers = new ArrayList<>();
        for (int a = 0; a < ATTACKERS; a++) {
            int attacker = a;
            attackers.add(Thread.ofVirtual().start(() -> {
                while (flooding.get()) {
                    String user = attacker % 2 == 0 ? "prometheus" : "guess-" + attacker;
                    HttpRequest wrong = HttpRequest.newBuilder(metrics).timeout(Duration.ofSeconds(30))
                            .header("Authorization", basic(user, "wrong-" + attempts.incrementAndGet())).build();
                    try {
                        int status = client.send(wrong, HttpResponse.BodyHandlers.discarding()).statusCode();
                        statuses.computeIfAbsent(status, s -> new AtomicInteger()).incrementAndGet();
                    } catch (Exception failed) {
                        statuses.computeIfAbsent(-1, s -> new AtomicInteger()).incrementAndGet();
                    }
                }
            }));
        }
        long slowest = 0;
        try {
            Thread.sleep(1000);
            for (int i = 0; i < 10; i++) {
                long started = System.nanoTime();
                assertEquals(200, client.send(valid, HttpResponse.BodyHandlers.discarding()).statusCode());
                slowest = Math.max(slowest, (System.nanoTime() - started) / 1_000_000);
                Thread.sleep(200);
            }
        } finally {
            flooding.set(false);
            for (Thread attacker : attackers) {
                attacker.join(60_000);
            }
        }
        assertTrue(slowest < 1000, "the slowest valid scrape during the flood took " + slowest + " ms");
        assertTrue(statuses.keySet().stream().allMatch(status -> status == 401 || status == 503),
                "wrong passwords get 401, or 503 while the checks are busy: " + statuses);
        assertTrue(statuses.containsKey(401), "some wrong passwords were checked: " + statuses);
    }
}
