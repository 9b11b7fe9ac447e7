package io.hamiobserve.app;

import io.hamiobserve.edge.http.EdgeConfig;
import io.hamiobserve.edge.Servers;
import io.hamiobserve.edge.testing.EdgeTestSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A role that stamps its state reports ready only once its first exposition is rendered and kept,
 * and the first scrape after that is served from it; a role that collects at every scrape is
 * ready as soon as its sources are.
 */
class RenderedAheadTest {
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final List<Servers.Served> servers = new ArrayList<>();
    private final List<EdgeTestSource> sources = new ArrayList<>();

    @AfterEach
    void stop() {
        sources.forEach(EdgeTestSource::release);
        servers.forEach(Servers.Served::stop);
    }

    private Servers.Served serve(SourceRole role) {
        sources.add(role.source);
        RenderedAhead ahead = new RenderedAhead(role);
        Servers.Served served = Servers.serve("127.0.0.1:0", ahead, EdgeConfig.defaults());
        servers.add(served);
        ahead.renderOnceReady(served);
        return served;
    }

    private HttpResponse<String> get(Servers.Served served, String path, String... headers)
            throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + served.port() + path))
                .timeout(Duration.ofSeconds(20));
        if (headers.length > 0) {
            request.headers(headers);
        }
        return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void readyOnlyOnceTheFirstRenderingIsKeptAndThenTheFirstScrapeIsServedFromIt() throws Exception {
        EdgeTestSource source = EdgeTestSource.stamped("state 1").hold();
        SourceRole role = new SourceRole(source);
        Servers.Served served = serve(role);

        HttpResponse<String> unread = get(served, "/readyz");
        assertEquals(503, unread.statusCode());
        assertEquals("not ready: the test's ledger has not been read\n", unread.body());

        role.ready = true;
        assertTrue(source.entered.await(10, TimeUnit.SECONDS), "the rendering ahead started once the role was ready");
        HttpResponse<String> rendering = get(served, "/readyz");
        assertEquals(503, rendering.statusCode(), "ready role, rendering not kept yet");
        assertEquals("not ready: rendering the exposition ahead of the first scrape\n", rendering.body());

        source.release();
        long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        HttpResponse<String> ready = get(served, "/readyz");
        while (ready.statusCode() != 200 && System.nanoTime() < end) {
            Thread.sleep(5);
            ready = get(served, "/readyz");
        }
        assertEquals(200, ready.statusCode(), ready.body());
        assertEquals(1, source.collections.get());
        assertEquals(1, served.endpoint().renderings());

        // Prometheus's first scrape of the ready pod (OpenMetrics, gzip): the kept rendering.
        HttpResponse<String> scrape = get(served, "/metrics", "Accept", "application/openmetrics-text;version=1.0.0",
                "Accept-Encoding", "gzip");
        assertEquals(200, scrape.statusCode());
        assertEquals(1, source.collections.get(), "the scrape collected nothing");
        assertEquals(1, served.endpoint().renderings(), "and rendered nothing");
    }

    @Test
    void aRoleThatCollectsAtEveryScrapeIsReadyWhenItsSourcesAre() throws Exception {
        SourceRole role = new SourceRole(EdgeTestSource.uncached());
        Servers.Served served = serve(role);
        assertEquals(503, get(served, "/readyz").statusCode());
        role.ready = true;
        assertEquals(200, get(served, "/readyz").statusCode());
        assertEquals(0, role.source.collections.get(), "nothing rendered ahead");
    }
}
