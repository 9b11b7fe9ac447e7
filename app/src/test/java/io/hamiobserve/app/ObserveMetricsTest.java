package io.hamiobserve.app;

import io.hamiobserve.app.testing.SampleSource;
import io.helidon.webserver.WebServer;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The exporter's own JVM figures, from Helidon metrics, beside each endpoint's HAMi series. */
class ObserveMetricsTest {
    @Test
    void heapThreadsAndGcAreServedAtObserveMetricsUnderTheSameEdgeRules() throws Exception {
        WebServer server = Servers.serve("127.0.0.1:0", new SampleSource());
        try {
            HttpClient client = HttpClient.newHttpClient();
            URI observe = URI.create("http://127.0.0.1:" + server.port() + "/observe/metrics");
            HttpResponse<String> response = client.send(HttpRequest.newBuilder(observe).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, response.statusCode());
            assertTrue(response.body().contains("memory_usedHeap_bytes"), response.body());
            assertTrue(response.body().contains("thread_count"), response.body());
            assertTrue(response.body().contains("gc_total"), response.body());
            assertEquals("nosniff", response.headers().firstValue("x-content-type-options").orElseThrow());

            HttpResponse<String> post = client.send(HttpRequest.newBuilder(observe)
                    .POST(HttpRequest.BodyPublishers.ofString("x")).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(405, post.statusCode(), "the edge's method rule covers the observe route too");

            String hami = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port()
                    + "/metrics")).build(), HttpResponse.BodyHandlers.ofString()).body();
            assertTrue(!hami.contains("scope=\""), "Helidon's meters stay out of the HAMi exposition");
        } finally {
            server.stop();
        }
    }
}
