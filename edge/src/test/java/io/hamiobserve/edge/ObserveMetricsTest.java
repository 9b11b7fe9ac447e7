package io.hamiobserve.edge;

import io.hamiobserve.edge.http.EdgeConfig;
import io.hamiobserve.edge.http.MetricsEndpoint;
import io.hamiobserve.edge.testing.SampleSource;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.observe.ObserveFeature;
import io.helidon.webserver.observe.metrics.MetricsObserver;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The exporter's own JVM figures, from Helidon metrics, beside each endpoint's HAMi series. */
class ObserveMetricsTest {
    private final HttpClient client = HttpClient.newHttpClient();

    @Test
    void heapThreadsAndGcAreServedAtObserveMetricsUnderTheSameEdgeRules() throws Exception {
        Servers.Served served = Servers.serve("127.0.0.1:0", new SampleSource(), EdgeConfig.defaults());
        try {
            assertTrue(served.awaitObserving(Duration.ofSeconds(60)), "the observer is set up after the start");
            URI observe = URI.create("http://127.0.0.1:" + served.port() + "/observe/metrics");
            HttpResponse<String> response = client.send(HttpRequest.newBuilder(observe).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, response.statusCode());
            assertTrue(response.body().contains("memory_usedHeap_bytes"), response.body());
            assertTrue(response.body().contains("thread_count"), response.body());
            assertTrue(response.body().contains("gc_total"), response.body());
            assertTrue(response.body().contains("hami_observe_http_connections_closed_total{reason=\"evicted\""),
                    "the edge's counts are there before any close: " + response.body());
            assertEquals("nosniff", response.headers().firstValue("x-content-type-options").orElseThrow());

            HttpResponse<String> post = client.send(HttpRequest.newBuilder(observe)
                    .POST(HttpRequest.BodyPublishers.ofString("x")).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(405, post.statusCode(), "the edge's method rule covers the observe route too");

            String hami = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + served.port()
                    + "/metrics")).build(), HttpResponse.BodyHandlers.ofString()).body();
            assertTrue(!hami.contains("scope=\""), "Helidon's meters stay out of the HAMi exposition");
        } finally {
            served.stop();
        }
    }

    /**
     * Before the observer is ready, /observe answers 503 and says why while /metrics and the probes
     * answer; once it is, every observe request gets what a server built with Helidon's observe
     * feature gets (status, type, the series and their labels; the values are the moment's).
     */
    @Test
    void observeAnswers503UntilTheObserverIsReadyThenAsHelidonsObserveFeature() throws Exception {
        EdgeConfig edge = EdgeConfig.defaults();
        MetricsEndpoint endpoint = new MetricsEndpoint(new SampleSource(), edge);
        ObservedRouting routing = new ObservedRouting(endpoint::routing);
        WebServer deferred = WebServer.builder().host("127.0.0.1").port(0).shutdownHook(false)
                .featuresDiscoverServices(false)
                .routing(routing.builder())
                .build().start();
        WebServer reference = null;
        try {
            HttpResponse<String> early = get(deferred, "/observe/metrics", List.of());
            assertEquals(503, early.statusCode(), early.body());
            assertTrue(early.body().contains("metrics observer is still starting"), early.body());
            assertEquals("1", early.headers().firstValue("retry-after").orElseThrow());
            assertEquals("nosniff", early.headers().firstValue("x-content-type-options").orElseThrow(),
                    "behind the edge's filter");
            assertEquals(503, get(deferred, "/observe/metrics/vendor", List.of()).statusCode());
            assertEquals(200, get(deferred, "/metrics", List.of()).statusCode());
            assertEquals(200, get(deferred, "/healthz", List.of()).statusCode());
            assertEquals(404, get(deferred, "/nowhere", List.of()).statusCode());

            MetricsObserver observer = MetricsObserver.create();
            reference = WebServer.builder().host("127.0.0.1").port(0).shutdownHook(false)
                    .featuresDiscoverServices(false)
                    .addFeature(ObserveFeature.builder().endpoint("/observe").addObserver(observer).build())
                    .routing(new MetricsEndpoint(new SampleSource(), edge)::routing)
                    .build().start();
            routing.observe(observer, deferred);
            assertTrue(routing.observing().isDone());

            for (WebServer server : List.of(deferred, reference)) {
                get(server, "/metrics", List.of());
            }
            List<List<String>> requests = List.of(
                    List.of("GET", "/observe/metrics"),
                    List.of("GET", "/observe/metrics", "Accept", "application/json"),
                    List.of("GET", "/observe/metrics", "Accept", "application/openmetrics-text;version=1.0.0"),
                    List.of("GET", "/observe/metrics/vendor"),
                    List.of("GET", "/observe/metrics/base", "Accept", "application/json"),
                    List.of("GET", "/observe/metrics/nosuchscope"),
                    List.of("GET", "/observe/metrics?scope=vendor"),
                    List.of("OPTIONS", "/observe/metrics", "Accept", "application/json"),
                    List.of("HEAD", "/observe/metrics"),
                    List.of("GET", "/observe/nothing"),
                    List.of("GET", "/observe"),
                    List.of("POST", "/observe/metrics"),
                    List.of("GET", "/metrics"),
                    List.of("GET", "/readyz"));
            for (List<String> request : requests) {
                HttpResponse<String> expected = send(reference, request);
                HttpResponse<String> actual = send(deferred, request);
                assertEquals(expected.statusCode(), actual.statusCode(), request.toString());
                assertEquals(expected.headers().firstValue("content-type"), actual.headers().firstValue("content-type"),
                        request.toString());
                assertEquals(shape(expected.body()), shape(actual.body()), request.toString());
            }
            String text = get(deferred, "/observe/metrics", List.of()).body();
            assertTrue(text.contains("requests_count_total{scope=\"vendor\""), "Helidon's request count: " + text);
            assertTrue(text.contains("memory_usedHeap_bytes"), text);
        } finally {
            deferred.stop();
            if (reference != null) {
                reference.stop();
            }
        }
    }

    /** A body with its numbers taken out: the series, labels and keys, not the moment's values. */
    private static String shape(String body) {
        return body.replaceAll("-?[0-9][0-9.]*(E-?[0-9]+)?", "N");
    }

    private HttpResponse<String> get(WebServer server, String path, List<String> headers) throws Exception {
        List<String> request = new java.util.ArrayList<>(List.of("GET", path));
        request.addAll(headers);
        return send(server, request);
    }

    private HttpResponse<String> send(WebServer server, List<String> request) throws Exception {
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port()
                + request.get(1)));
        builder.method(request.get(0), request.get(0).equals("POST")
                ? HttpRequest.BodyPublishers.ofString("x") : HttpRequest.BodyPublishers.noBody());
        for (int i = 2; i + 1 < request.size(); i += 2) {
            builder.header(request.get(i), request.get(i + 1));
        }
        return client.send(builder.build(), HttpResponse.BodyHandlers.ofString());
    }
}
