package io.hamiobserve.adapters.prometheus;

import io.hamiobserve.ports.SourceUnavailableException;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Prometheus's HTTP query API: instant and range queries, sent as form posts (long expressions do
 * not fit every proxy's URL limit), answers decoded with Jackson. Every failure becomes a
 * {@link SourceUnavailableException} that names the query and says what went wrong, in words:
 * unreachable, too slow, refused (with Prometheus's own error), or not Prometheus's JSON.
 */
final class PrometheusApi {
    /** An answer larger than this is refused rather than parsed (a misdirected URL, a runaway query). */
    static final long MAX_ANSWER_BYTES = 512L * 1024 * 1024;

    private static final ObjectMapper JSON = JsonMapper.builder().build();

    /** The parameters each query sets itself: a configured {@code params} entry may not name one. */
    static final java.util.Set<String> OWN_PARAMETERS = java.util.Set.of("query", "time", "start", "end", "step");

    private final URI base;
    private final Duration timeout;
    private final HttpClient client;
    private final QueryBackend backend;

    /** One instant-vector sample. */
    record Sample(Map<String, String> labels, double value) {
        String label(String name) {
            return labels.getOrDefault(name, "");
        }
    }

    /** One range-query series: its labels and (epoch seconds, value) points. */
    record Series(Map<String, String> labels, List<double[]> points) {
    }

    /**
     * @param base    Prometheus's root URL, e.g. {@code http://prometheus:9090} (user info in it becomes basic auth)
     * @param timeout how long one query may take, end to end
     */
    PrometheusApi(URI base, Duration timeout) {
        this(new QueryBackend(BackendConfig.of(base)), timeout);
    }

    /** The backend's TLS, credentials, headers and parameters apply to every query ({@link QueryBackend}). */
    PrometheusApi(QueryBackend backend, Duration timeout) {
        this.backend = backend;
        this.base = backend.base();
        this.timeout = timeout;
        this.client = backend.client(timeout.compareTo(Duration.ofSeconds(3)) < 0 ? timeout : Duration.ofSeconds(3));
    }

    /** Which engine answers, asked once it answers at all (empty while it cannot be told). */
    Optional<Engine> probe() {
        return Engine.detect(backend, client, timeout.compareTo(Duration.ofSeconds(3)) < 0 ? timeout
                : Duration.ofSeconds(3));
    }

    QueryBackend backend() {
        return backend;
    }

    /** Where the queries go, without credentials. */
    URI base() {
        return base;
    }

    CompletableFuture<List<Sample>> instant(PromQl.Query query, Instant at) {
        return post(query, "api/v1/query", Map.of("query", query.expression(), "time", seconds(at)))
                .thenApply(answer -> vector(query, answer));
    }

    CompletableFuture<List<Series>> range(PromQl.Query query, Instant start, Instant end, Duration step) {
        return post(query, "api/v1/query_range", Map.of("query", query.expression(), "start", seconds(start),
                "end", seconds(end), "step", Long.toString(Math.max(1, step.toSeconds()))))
                .thenApply(answer -> matrix(query, answer));
    }

    /** Waits for a query's answer; its failure is the port's exception. */
    static <T> T await(CompletableFuture<T> answer) throws SourceUnavailableException {
        try {
            return answer.join();
        } catch (CompletionException failed) {
            if (failed.getCause() instanceof QueryFailed query) {
                throw new SourceUnavailableException(query.getMessage(), query.getCause());
            }
            throw new SourceUnavailableException("querying Prometheus failed: " + failed.getCause(), failed.getCause());
        }
    }

    private CompletableFuture<Answer> post(PromQl.Query query, String path, Map<String, String> form) {
        StringBuilder body = new StringBuilder();
        form.forEach((key, value) -> body.append(body.isEmpty() ? "" : "&").append(key).append('=')
                .append(URLEncoder.encode(value, StandardCharsets.UTF_8)));
        body.append(backend.extraForm(path.equals("api/v1/query")));
        HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve(path))
                .timeout(timeout)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .header("Accept", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString()));
        try {
            backend.decorate(request);
        } catch (java.io.IOException unreadable) {
            return CompletableFuture.failedFuture(new QueryFailed(query, "the credentials for " + base
                    + " cannot be read: " + unreadable.getMessage(), null));
        }
        return client.sendAsync(request.build(), HttpResponse.BodyHandlers.ofInputStream())
                .handle((response, failure) -> {
                    if (failure != null) {
                        throw new QueryFailed(query, unreachable(failure), failure);
                    }
                    return checked(query, response);
                });
    }

    private String unreachable(Throwable failure) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause()
                : failure;
        if (cause instanceof HttpConnectTimeoutException) {
            return "Prometheus at " + base + " did not accept a connection in time";
        }
        if (cause instanceof HttpTimeoutException) {
            return "Prometheus at " + base + " did not answer within " + timeout.toMillis() / 1000.0 + " s";
        }
        if (cause instanceof ConnectException) {
            return "Prometheus at " + base + " is unreachable (connection refused)";
        }
        return "Prometheus at " + base + " is unreachable: " + cause;
    }

    /**
     * Prometheus's answer, read as a stream: a vector of 10,000 series is 2 MB of JSON, and building
     * a tree of it first would double the work and the garbage.
     */
    private record Answer(String status, String errorType, String error, String resultType, List<Series> result) {
    }

    private Answer decode(PromQl.Query query, HttpResponse<InputStream> response) {
        try (InputStream in = new BoundedStream(response.body(), MAX_ANSWER_BYTES);
             JsonParser parser = JSON.createParser(in)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                throw new IOException("the answer is not a JSON object");
            }
            String status = "";
            String errorType = "";
            String error = "";
            String resultType = "";
            List<Series> result = List.of();
            while (parser.nextToken() == JsonToken.PROPERTY_NAME) {
                String name = parser.currentName();
                parser.nextToken();
                switch (name) {
                    case "status" -> status = parser.getValueAsString("");
                    case "errorType" -> errorType = parser.getValueAsString("");
                    case "error" -> error = parser.getValueAsString("");
                    case "data" -> {
                        if (parser.currentToken() != JsonToken.START_OBJECT) {
                            parser.skipChildren();
                            continue;
                        }
                        while (parser.nextToken() == JsonToken.PROPERTY_NAME) {
                            String field = parser.currentName();
                            parser.nextToken();
                            if (field.equals("resultType")) {
                                resultType = parser.getValueAsString("");
                            } else if (field.equals("result")) {
                                result = resultType.equals("scalar") ? List.of(new Series(Map.of(),
                                        List.<double[]>of(point(parser)))) : series(parser);
                            } else {
                                parser.skipChildren();
                            }
                        }
                    }
                    default -> parser.skipChildren();
                }
            }
            return new Answer(status, errorType, error, resultType, result);
        } catch (IOException | JacksonException | NumberFormatException unreadable) {
            throw new QueryFailed(query, "Prometheus at " + base + " answered HTTP " + response.statusCode()
                    + " with something that is not its JSON (" + unreadable.getMessage() + ")", unreadable);
        }
    }

    /** The result array: objects with a "metric" and a "value" (vector) or "values" (matrix). */
    private static List<Series> series(JsonParser parser) throws IOException {
        List<Series> series = new ArrayList<>();
        if (parser.currentToken() != JsonToken.START_ARRAY) {
            parser.skipChildren();
            return series;
        }
        while (parser.nextToken() == JsonToken.START_OBJECT) {
            Map<String, String> labels = Map.of();
            List<double[]> points = new ArrayList<>(1);
            while (parser.nextToken() == JsonToken.PROPERTY_NAME) {
                String field = parser.currentName();
                parser.nextToken();
                switch (field) {
                    case "metric" -> labels = labels(parser);
                    case "value" -> points.add(point(parser));
                    case "values" -> {
                        while (parser.nextToken() == JsonToken.START_ARRAY) {
                            points.add(pointBody(parser));
                        }
                    }
                    default -> parser.skipChildren();
                }
            }
            series.add(new Series(labels, points));
        }
        return series;
    }

    private static Map<String, String> labels(JsonParser parser) throws IOException {
        Map<String, String> labels = new HashMap<>();
        if (parser.currentToken() != JsonToken.START_OBJECT) {
            parser.skipChildren();
            return labels;
        }
        while (parser.nextToken() == JsonToken.PROPERTY_NAME) {
            String name = parser.currentName();
            parser.nextToken();
            labels.put(name, parser.getValueAsString(""));
        }
        return labels;
    }

    /** A [time, "value"] pair; the parser is on its opening bracket. */
    private static double[] point(JsonParser parser) throws IOException {
        if (parser.currentToken() != JsonToken.START_ARRAY) {
            parser.skipChildren();
            return new double[] {Double.NaN, Double.NaN};
        }
        return pointBody(parser);
    }

    private static double[] pointBody(JsonParser parser) throws IOException {
        parser.nextToken();
        double time = parser.currentToken().isNumeric() ? parser.getDoubleValue() : Double.NaN;
        parser.nextToken();
        double value = number(parser.getValueAsString("NaN"));
        while (parser.nextToken() != JsonToken.END_ARRAY) {
            parser.skipChildren();
        }
        return new double[] {time, value};
    }

    private Answer checked(PromQl.Query query, HttpResponse<InputStream> response) {
        Answer answer = decode(query, response);
        if (!answer.status().equals("success")) {
            String error = answer.errorType() + ": " + answer.error();
            throw new QueryFailed(query, "Prometheus at " + base + " refused the query (HTTP " + response.statusCode()
                    + (error.equals(": ") ? "" : ", " + error) + ")", null);
        }
        return answer;
    }

    private static List<Sample> vector(PromQl.Query query, Answer answer) {
        if (!answer.resultType().equals("vector") && !answer.resultType().equals("scalar")) {
            throw new QueryFailed(query, "the query " + query.name() + " returned a " + answer.resultType()
                    + ", not a vector", null);
        }
        List<Sample> samples = new ArrayList<>(answer.result().size());
        for (Series series : answer.result()) {
            samples.add(new Sample(series.labels(), series.points().isEmpty() ? Double.NaN
                    : series.points().getFirst()[1]));
        }
        return samples;
    }

    private static List<Series> matrix(PromQl.Query query, Answer answer) {
        if (!answer.resultType().equals("matrix")) {
            throw new QueryFailed(query, "the range query " + query.name() + " returned no matrix", null);
        }
        return answer.result();
    }

    /** Prometheus writes sample values as strings, including "NaN", "+Inf" and "-Inf". */
    private static double number(String text) {
        return switch (text) {
            case "+Inf", "Inf" -> Double.POSITIVE_INFINITY;
            case "-Inf" -> Double.NEGATIVE_INFINITY;
            default -> {
                try {
                    yield Double.parseDouble(text);
                } catch (NumberFormatException notNumber) {
                    yield Double.NaN;
                }
            }
        };
    }

    private static String seconds(Instant at) {
        return at.getEpochSecond() + (at.getNano() == 0 ? "" : String.format(".%03d", at.getNano() / 1_000_000));
    }

    /** A failed query, carried through the futures until {@link #await} turns it into the port's exception. */
    static final class QueryFailed extends RuntimeException {
        private static final long serialVersionUID = 1L;

        QueryFailed(PromQl.Query query, String message, Throwable cause) {
            super(message + " [query " + query.name() + "]", cause);
        }
    }

    /** Ends the stream with an error once more than {@code limit} bytes were read. */
    private static final class BoundedStream extends java.io.FilterInputStream {
        private long left;

        BoundedStream(InputStream in, long limit) {
            super(in);
            this.left = limit;
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b >= 0 && --left < 0) {
                throw new IOException("the answer is larger than " + MAX_ANSWER_BYTES + " bytes");
            }
            return b;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            int n = super.read(buffer, offset, length);
            if (n > 0 && (left -= n) < 0) {
                throw new IOException("the answer is larger than " + MAX_ANSWER_BYTES + " bytes");
            }
            return n;
        }
    }
}
