package io.hamiobserve.app.http;

import io.helidon.http.HeaderNames;
import io.helidon.http.Method;
import io.helidon.http.PathMatchers;
import io.helidon.http.Status;
import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.zip.GZIPOutputStream;

/**
 * One role's HTTP face: {@code /metrics} (GET and HEAD; Prometheus text by default, OpenMetrics
 * when asked, gzip when accepted), {@code /healthz} and {@code /readyz}. Any other method on
 * these paths answers 405.
 */
public final class MetricsEndpoint {
    private static final Logger LOG = Logger.getLogger(MetricsEndpoint.class.getName());

    private final MetricsSource source;
    private final AtomicReference<Rendering> last = new AtomicReference<>();

    /** A rendering kept for reuse while the source's state stamp stays the same. */
    private record Rendering(Object stamp, ExpositionFormat format, boolean gzip, byte[] body) {
    }

    public MetricsEndpoint(MetricsSource source) {
        this.source = source;
    }

    /** Adds this endpoint's routes. */
    public void routing(HttpRouting.Builder routing) {
        routing.get("/metrics", this::metrics)
                .head("/metrics", this::metrics)
                .get("/healthz", (request, response) -> response.send("ok\n"))
                .head("/healthz", (request, response) -> response.send())
                .get("/readyz", this::readiness)
                .head("/readyz", this::readiness)
;
        for (String path : new String[] {"/metrics", "/healthz", "/readyz"}) {
            routing.route(method -> method != Method.GET && method != Method.HEAD, PathMatchers.exact(path),
                    (request, response) -> response.status(Status.METHOD_NOT_ALLOWED_405)
                            .header(HeaderNames.ALLOW, "GET, HEAD")
                            .send("only GET and HEAD are served here\n"));
        }
    }

    private void readiness(ServerRequest request, ServerResponse response) {
        if (source.ready()) {
            response.send("ready\n");
        } else {
            response.status(Status.SERVICE_UNAVAILABLE_503).send("not ready: " + source.notReadyReason() + "\n");
        }
    }

    private void metrics(ServerRequest request, ServerResponse response) {
        ExpositionFormat format = ExpositionFormat.negotiate(
                request.headers().first(HeaderNames.ACCEPT).orElse(null));
        boolean gzip = request.headers().first(HeaderNames.ACCEPT_ENCODING)
                .map(MetricsEndpoint::acceptsGzip).orElse(false);
        byte[] body;
        try {
            body = render(format, gzip);
        } catch (RuntimeException failure) {
            // A bug, not bad data (bad data is skipped and counted by the sources): say so plainly.
            LOG.log(Level.SEVERE, "rendering the exposition failed", failure);
            response.status(Status.INTERNAL_SERVER_ERROR_500).send("rendering failed: " + failure + "\n");
            return;
        }
        response.header(HeaderNames.CONTENT_TYPE, format.contentType());
        response.header(HeaderNames.X_CONTENT_TYPE_OPTIONS, "nosniff");
        response.header(HeaderNames.VARY, "Accept, Accept-Encoding");
        if (gzip) {
            response.header(HeaderNames.CONTENT_ENCODING, "gzip");
        }
        if (request.prologue().method() == Method.HEAD) {
            response.header(HeaderNames.CONTENT_LENGTH, Integer.toString(body.length));
            response.send();
        } else {
            response.send(body);
        }
    }

    /** The body for one format and encoding, reusing the last rendering while the state is unchanged. */
    byte[] render(ExpositionFormat format, boolean gzip) {
        Optional<Object> stamp = source.stateStamp();
        Rendering previous = last.get();
        if (stamp.isPresent() && previous != null && previous.stamp().equals(stamp.get())
                && previous.format() == format && previous.gzip() == gzip) {
            return previous.body();
        }
        byte[] body = encode(format, gzip);
        if (stamp.isPresent()) {
            last.set(new Rendering(stamp.get(), format, gzip, body));
        }
        return body;
    }

    private byte[] encode(ExpositionFormat format, boolean gzip) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 * 1024);
            if (gzip) {
                try (GZIPOutputStream zipped = new GZIPOutputStream(bytes, 8192)) {
                    format.writer().write(zipped, source.collect());
                }
            } else {
                format.writer().write(bytes, source.collect());
            }
            return bytes.toByteArray();
        } catch (IOException impossible) {
            throw new UncheckedIOException(impossible);
        }
    }

    static boolean acceptsGzip(String acceptEncoding) {
        for (String coding : acceptEncoding.split(",")) {
            String[] parts = coding.trim().split(";");
            if (parts[0].trim().equalsIgnoreCase("gzip")) {
                for (int i = 1; i < parts.length; i++) {
                    String parameter = parts[i].trim().replace(" ", "");
                    if (parameter.equals("q=0") || parameter.matches("q=0\\.0*")) {
                        return false;
                    }
                }
                return true;
            }
        }
        return false;
    }
}
