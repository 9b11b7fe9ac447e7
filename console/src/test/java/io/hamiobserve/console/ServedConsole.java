package io.hamiobserve.console;

import io.hamiobserve.ports.FleetHistory;
import io.helidon.webserver.WebServer;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A console served over HTTP for one test, as a browser meets it: Helidon on a free loopback
 * port, its clock fixed, stopped after the test ({@code @RegisterExtension}).
 */
final class ServedConsole implements AfterEachCallback {
    private final HttpClient client = HttpClient.newHttpClient();
    private WebServer server;

    /** Serves a console over {@code history} with {@code settings} at {@code now}; its base URL. */
    String start(FleetHistory history, ConsoleSettings settings, Instant now) {
        Console console = Console.create(history, settings, Clock.fixed(now, ZoneOffset.UTC));
        server = WebServer.builder().port(0).host("127.0.0.1").shutdownHook(false).routing(console::routing).build()
                .start();
        return "http://127.0.0.1:" + server.port();
    }

    /** The answer to a GET of {@code url}, whatever its status. */
    HttpResponse<String> send(String url) throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The page at {@code url}, which must answer 200 (the body is in the message when it does not). */
    String get(String url) throws Exception {
        HttpResponse<String> response = send(url);
        assertEquals(200, response.statusCode(), url + ": " + response.body());
        return response.body();
    }

    @Override
    public void afterEach(ExtensionContext context) {
        if (server != null) {
            server.stop();
            server = null;
        }
    }
}
