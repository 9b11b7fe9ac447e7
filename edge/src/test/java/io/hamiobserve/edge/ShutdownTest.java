package io.hamiobserve.edge;

import io.hamiobserve.edge.http.EdgeConfig;
import io.hamiobserve.edge.testing.EdgeTestSource;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Graceful shutdown: readiness first, in-flight scrapes finish within a bound, roles close last. */
class ShutdownTest {
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private HttpResponse<String> get(Servers.Served served, String path) throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + served.port() + path))
                .timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void readinessTurns503WhileInFlightScrapesFinishThenRolesClose() throws Exception {
        EdgeTestSource source = EdgeTestSource.uncached().hold();
        Servers.Served served = Servers.serve("127.0.0.1:0", source, EdgeConfig.defaults());
        AtomicBoolean serverRunningAtClose = new AtomicBoolean(true);
        source.onClose = () -> serverRunningAtClose.set(served.server().isRunning());
        CompletableFuture<HttpResponse<String>> inFlight = client.sendAsync(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + served.port() + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertTrue(source.entered.await(10, TimeUnit.SECONDS));
        assertEquals(200, get(served, "/readyz").statusCode());

        long started = System.nanoTime();
        CompletableFuture<Void> shutdown = CompletableFuture.runAsync(
                () -> Servers.shutdown(List.of(served), List.of(source), Duration.ofSeconds(5)));
        HttpResponse<String> ready = null;
        for (int i = 0; i < 200 && (ready == null || ready.statusCode() != 503); i++) {
            ready = get(served, "/readyz");
        }
        assertEquals(503, ready.statusCode());
        assertTrue(ready.body().contains("shutting down"), ready.body());
        assertFalse(shutdown.isDone(), "the shutdown waits for the scrape in flight");
        assertFalse(source.closed, "the role stays open while a scrape reads it");

        source.release();
        assertEquals(200, inFlight.get(10, TimeUnit.SECONDS).statusCode(), "the scrape in flight finishes");
        shutdown.get(10, TimeUnit.SECONDS);
        assertTrue(source.closed, "the role is closed");
        assertFalse(serverRunningAtClose.get(), "after its server stopped");
        assertTrue(System.nanoTime() - started < TimeUnit.SECONDS.toNanos(5));
    }

    @Test
    void aHungScrapeDoesNotHoldTheShutdownBeyondItsBound() throws Exception {
        EdgeTestSource source = EdgeTestSource.uncached().hold();
        Servers.Served served = Servers.serve("127.0.0.1:0", source, EdgeConfig.defaults());
        client.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + served.port() + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertTrue(source.entered.await(10, TimeUnit.SECONDS));
        long started = System.nanoTime();
        Servers.shutdown(List.of(served), List.of(source), Duration.ofMillis(400));
        long tookMillis = (System.nanoTime() - started) / 1_000_000;
        assertTrue(tookMillis >= 400 && tookMillis < 3000, "bounded shutdown took " + tookMillis + " ms");
        assertFalse(served.server().isRunning());
        assertTrue(source.closed);
        source.release();
    }
}
