package io.hamiobserve.app;

import io.hamiobserve.app.cli.Subcommand;
import io.hamiobserve.edge.http.EdgeConfig;
import io.hamiobserve.edge.testing.EdgeTestSource;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
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

    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void theSourcesStartOnceTheServerAnswersOnThePrintedPort() {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        AtomicReference<String> printedAtStart = new AtomicReference<>();
        AtomicInteger statusAtStart = new AtomicInteger(-1);
        SourceRole role = new SourceRole(EdgeTestSource.uncached());
        role.ready = true;
        role.onStart = () -> {
            // What an operator, or Prometheus, could see of the process as its sources start.
            printedAtStart.set(printed.toString(StandardCharsets.UTF_8));
            Matcher port = PORT.matcher(printedAtStart.get());
            if (port.find()) {
                statusAtStart.set(scrape(Integer.parseInt(port.group(1))));
            }
        };
        PrintStream out = new PrintStream(printed, true, StandardCharsets.UTF_8);
        int exit = Serving.serve(List.of("127.0.0.1:0"), List.of(role), EdgeConfig.defaults(), out, System.err);

        assertEquals(Subcommand.KEEP_RUNNING, exit);
        assertTrue(PORT.matcher(printedAtStart.get()).find(),
                "the port was printed before the sources started: '" + printedAtStart.get() + "'");
        assertEquals(200, statusAtStart.get(), "a scrape was answered before the sources started");
    }

    private int scrape(int port) {
        try {
            return client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                    .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException failed) {
            throw new UncheckedIOException(failed);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(interrupted);
        }
    }
}
