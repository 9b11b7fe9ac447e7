package io.hamiobserve.edge;

import io.hamiobserve.edge.http.EdgeConfig;
import io.hamiobserve.edge.testing.EdgeTestSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPInputStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Concurrent scrapes share one collection, and one rendering per (format, gzip) variant. */
class EdgeCoalescingTest {
    private static final int SCRAPES = 24;
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final List<Servers.Served> servers = new ArrayList<>();
    private final List<EdgeTestSource> sources = new ArrayList<>();

    @AfterEach
    void stop() {
        sources.forEach(EdgeTestSource::release);
        servers.forEach(Servers.Served::stop);
    }

    private Servers.Served serve(EdgeTestSource source) {
        sources.add(source);
        Servers.Served served = Servers.serve("127.0.0.1:0", source,
                EdgeConfig.defaults().withMaxConcurrentScrapes(SCRAPES + 8));
        servers.add(served);
        return served;
    }

    private CompletableFuture<HttpResponse<byte[]>> scrape(Servers.Served served, String... headers) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + served.port() + "/metrics"))
                .timeout(Duration.ofSeconds(20));
        if (headers.length > 0) {
            request.headers(headers);
        }
        return client.sendAsync(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    private static String text(byte[] body) {
        return new String(body, StandardCharsets.UTF_8);
    }

    @Test
    void scrapesArrivingDuringACollectionWaitForItAndShareItsResult() throws Exception {
        EdgeTestSource source = EdgeTestSource.uncached().hold();
        Servers.Served served = serve(source);
        List<CompletableFuture<HttpResponse<byte[]>>> responses = new ArrayList<>();
        responses.add(scrape(served));
        assertTrue(source.entered.await(10, TimeUnit.SECONDS), "the first scrape started a collection");
        for (int i = 1; i < SCRAPES; i++) {
            responses.add(scrape(served));
        }
        EdgeTestSource.awaitInFlight(served, SCRAPES);
        source.release();

        byte[] first = responses.getFirst().get().body();
        for (CompletableFuture<HttpResponse<byte[]>> response : responses) {
            assertEquals(200, response.get().statusCode());
            assertArrayEquals(first, response.get().body(), "every waiting scrape got the one result");
        }
        assertTrue(text(first).contains("edge_test_collection 1.0"), text(first));
        assertEquals(1, source.collections.get(), "one collection served " + SCRAPES + " scrapes");
        assertEquals(1, served.endpoint().renderings(), "and one rendering");

        byte[] later = scrape(served).get().body();
        assertEquals(2, source.collections.get(), "a scrape after the collection ended collects afresh");
        assertTrue(text(later).contains("edge_test_collection 2.0"), text(later));
    }

    @Test
    void unchangedStateIsCollectedOnceAndRenderedOncePerVariant() throws Exception {
        EdgeTestSource source = EdgeTestSource.stamped("v1").hold();
        Servers.Served served = serve(source);
        String[][] variants = {
            {},
            {"Accept-Encoding", "gzip"},
            {"Accept", "application/openmetrics-text; version=1.0.0"},
            {"Accept", "application/openmetrics-text; version=1.0.0", "Accept-Encoding", "gzip"},
        };
        List<CompletableFuture<HttpResponse<byte[]>>> responses = new ArrayList<>();
        for (int i = 0; i < SCRAPES; i++) {
            responses.add(scrape(served, variants[i % variants.length]));
        }
        EdgeTestSource.awaitInFlight(served, SCRAPES);
        source.release();

        byte[][] bodies = new byte[variants.length][];
        for (int i = 0; i < SCRAPES; i++) {
            HttpResponse<byte[]> response = responses.get(i).get();
            assertEquals(200, response.statusCode());
            int variant = i % variants.length;
            if (bodies[variant] == null) {
                bodies[variant] = response.body();
            }
            assertArrayEquals(bodies[variant], response.body(), "same variant, same bytes");
            boolean gzip = variant % 2 == 1;
            assertEquals(gzip, response.headers().firstValue("content-encoding").isPresent());
            String body = gzip ? text(new GZIPInputStream(new ByteArrayInputStream(response.body())).readAllBytes())
                    : text(response.body());
            boolean openMetrics = variant >= 2;
            assertEquals(openMetrics, body.endsWith("# EOF\n"), "variant " + variant + " got its own format");
            assertEquals(openMetrics, response.headers().firstValue("content-type").orElseThrow()
                    .startsWith("application/openmetrics-text"));
            assertTrue(body.contains("edge_test_collection 1.0"), body);
        }
        assertEquals(1, source.collections.get(), "one collection for all variants");
        assertEquals(variants.length, served.endpoint().renderings(), "one rendering per variant");

        for (String[] variant : variants) {
            assertEquals(200, scrape(served, variant).get().statusCode());
        }
        assertEquals(1, source.collections.get(), "unchanged state is served from the cache");
        assertEquals(variants.length, served.endpoint().renderings());

        source.restamp("v2");
        assertTrue(text(scrape(served).get().body()).contains("edge_test_collection 2.0"), "a new state is seen");
        assertEquals(2, source.collections.get());
    }

    @Test
    void aFailedCollectionIsRetriedByTheNextScrape() throws Exception {
        EdgeTestSource failing = new EdgeTestSource(java.util.Optional.of("same")) {
            @Override
            public io.hamiobserve.exposition.Exposition collect() {
                if (collections.get() == 0) {
                    collections.incrementAndGet();
                    throw new ArithmeticException("long overflow in pod secret-tenant/db-0");
                }
                return super.collect();
            }
        };
        Servers.Served served = serve(failing);
        HttpResponse<byte[]> failed = scrape(served).get();
        assertEquals(500, failed.statusCode());
        assertEquals("the exposition could not be rendered; the exporter's log has the detail\n", text(failed.body()),
                "a stable text naming no exception class, message or data");
        HttpResponse<byte[]> retried = scrape(served).get();
        assertEquals(200, retried.statusCode());
        assertTrue(text(retried.body()).contains("edge_test_collection 2.0"), text(retried.body()));
    }

    @Test
    void aRenderingAheadServesTheFirstScrapeOfAnUnchangedStateAndIsRedoneAfterAChange() throws Exception {
        EdgeTestSource source = EdgeTestSource.stamped("state 1");
        Servers.Served served = serve(source);

        served.endpoint().renderAhead();
        assertEquals(1, source.collections.get(), "rendered ahead: one collection");
        assertEquals(1, served.endpoint().renderings(), "and one rendering, before any scrape");

        // Prometheus's first scrape (OpenMetrics, gzip) is the rendering made ahead.
        HttpResponse<byte[]> first = scrape(served, "Accept", "application/openmetrics-text;version=1.0.0",
                "Accept-Encoding", "gzip").get(20, TimeUnit.SECONDS);
        assertEquals(200, first.statusCode());
        assertEquals("gzip", first.headers().firstValue("Content-Encoding").orElse(""));
        String body = text(new GZIPInputStream(new ByteArrayInputStream(first.body())).readAllBytes());
        assertTrue(body.contains("edge_test_collection 1.0") && body.endsWith("# EOF\n"), body);
        assertEquals(1, source.collections.get(), "the scrape collected nothing");
        assertEquals(1, served.endpoint().renderings(), "and rendered nothing");

        source.restamp("state 2");
        HttpResponse<byte[]> changed = scrape(served).get(20, TimeUnit.SECONDS);
        assertTrue(text(changed.body()).contains("edge_test_collection 2.0"), text(changed.body()));
        assertEquals(2, source.collections.get(), "a changed state is collected again");
    }
}
