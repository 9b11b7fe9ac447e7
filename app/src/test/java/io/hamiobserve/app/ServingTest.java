package io.hamiobserve.app;

import io.hamiobserve.app.cli.Subcommand;
import io.hamiobserve.app.exposition.Exposition;
import io.hamiobserve.app.http.EdgeConfig;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A role's sources start once its server listens and its port is printed: a start is CPU-bound,
 * and reading a source's input beside the server's build delayed the first answer. The server
 * stays up until the test JVM exits (the shutdown hook {@link Serving#serve} installs stops it).
 */
class ServingTest {
    private static final Pattern PORT = Pattern.compile("view on :(\\d+)/metrics");

    /** A role that, as its sources start, scrapes the port printed so far. */
    private static final class ScrapingAtStart implements Role {
        private final EdgeTestSource source = EdgeTestSource.uncached();
        private final ByteArrayOutputStream printed;
        private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        volatile String printedAtStart;
        volatile int statusAtStart = -1;

        ScrapingAtStart(ByteArrayOutputStream printed) {
            this.printed = printed;
        }

        @Override
        public String view() {
            return "test";
        }

        @Override
        public Role start() {
            printedAtStart = printed.toString(StandardCharsets.UTF_8);
            Matcher port = PORT.matcher(printedAtStart);
            if (port.find()) {
                try {
                    statusAtStart = client.send(HttpRequest.newBuilder(
                                    URI.create("http://127.0.0.1:" + port.group(1) + "/metrics"))
                            .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.discarding())
                            .statusCode();
                } catch (Exception failed) {
                    throw new IllegalStateException(failed);
                }
            }
            return this;
        }

        @Override
        public Optional<Object> stateStamp() {
            return source.stateStamp();
        }

        @Override
        public Exposition collect() {
            return source.collect();
        }

        @Override
        public boolean ready() {
            return true;
        }

        @Override
        public String notReadyReason() {
            return "";
        }

        @Override
        public void close() {
            source.close();
        }
    }

    @Test
    void theSourcesStartOnceTheServerAnswersOnThePrintedPort() {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        ScrapingAtStart role = new ScrapingAtStart(printed);
        PrintStream out = new PrintStream(printed, true, StandardCharsets.UTF_8);
        int exit = Serving.serve(List.of("127.0.0.1:0"), List.of(role), EdgeConfig.defaults(), out, System.err);

        assertEquals(Subcommand.KEEP_RUNNING, exit);
        assertTrue(PORT.matcher(role.printedAtStart).find(),
                "the port was printed before the sources started: '" + role.printedAtStart + "'");
        assertEquals(200, role.statusAtStart, "a scrape was answered before the sources started");
    }
}
