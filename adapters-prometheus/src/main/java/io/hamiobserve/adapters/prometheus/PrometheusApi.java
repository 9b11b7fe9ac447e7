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
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Prometheus's HTTP query API: instant and range queries, sent as form posts (long expressions do
 * not fit every proxy's URL limit), answers decoded with Jackson. Every failure becomes a
 * {@link SourceUnavailableException} that names the query and says what went wrong, in words:
 * unreachable, too slow, refused (with Prometheus's own error), redirected, too large, or not
 * Prometheus's JSON.
 *
 * <p>Every query is bounded three ways, so a Prometheus that stalls, floods or multiplies cannot
 * hold a thread or the heap:
 * <ul>
 *   <li><b>time</b>: the whole exchange — headers <em>and</em> body — ends within the timeout; at
 *       the deadline the body's stream is closed, which ends the blocked read (a stalled body, a TCP
 *       black hole after the headers). Waiting for a slot (below) is bounded by the same timeout.</li>
 *   <li><b>concurrency</b>: at most {@link #MAX_IN_FLIGHT} queries in flight; more wait for a
 *       slot. Prometheus runs 20 queries at once by default ({@code --query.max-concurrency}) and
 *       queues the rest; staying below it leaves room for its rules and other readers. Once the
 *       engine is known, no more than it runs at once ({@link Engine#queriesAtOnce}: VictoriaMetrics
 *       answers 503 to a query that waited in its queue past {@code -search.maxQueueDuration}).</li>
 *   <li><b>overload</b>: an engine that says it is overloaded (HTTP 429, or 503 with a body that is
 *       not Prometheus's JSON error) is asked again after a pause ({@code Retry-After}, else
 *       0.25 s doubling to 4 s), while the query's deadline allows; the slot stays held meanwhile,
 *       so the console sends less while the engine is busy.</li>
 *   <li><b>a closed connection</b>: a kept-alive connection that the engine (or a proxy) closed
 *       just as it was reused ends the exchange with no byte of an answer; the query, which only
 *       reads, is sent once more on a new connection. A connection refused, a timeout or a second
 *       such close fails the query.</li>
 *   <li><b>memory</b>: answers are parsed as they stream, and the bytes of every answer being
 *       read count against one budget shared by all queries ({@link #defaultBudget}: an eighth of
 *       the heap, between 16 and 256 MiB). A query whose answer would pass it fails, named, rather
 *       than the process running out of memory with thirty large answers at once.</li>
 * </ul>
 */
final class PrometheusApi {
    /** The most queries in flight at once: below Prometheus's own default of 20. */
    static final int MAX_IN_FLIGHT = 16;

    private static final ObjectMapper JSON = JsonMapper.builder().build();
    /** Closes the bodies of answers past their deadline: one daemon thread for every query. */
    private static final java.util.concurrent.ScheduledThreadPoolExecutor DEADLINES = deadlines();

    /** The parameters each query sets itself: a configured {@code params} entry may not name one. */
    static final java.util.Set<String> OWN_PARAMETERS = java.util.Set.of("query", "time", "start", "end", "step");

    private final URI base;
    /** The query string of the URL given ({@code ?tenant=a}), sent with every request; empty for none. */
    private final String extraQuery;
    private final Duration timeout;
    private final HttpClient client;
    private final QueryBackend backend;
    private final Slots slots = new Slots();
    /** The bytes of the answers being read now, together, and the most they may be. */
    private final java.util.concurrent.atomic.AtomicLong inFlightBytes = new java.util.concurrent.atomic.AtomicLong();
    private final long budgetBytes;
    /** The last exchange's failure, or null when it succeeded. */
    private volatile String lastFailure;

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
     * @param base    Prometheus's root URL, e.g. {@code http://prometheus:9090} or
     *                {@code http://gateway/prometheus?tenant=a} (user info in it becomes basic auth; its
     *                path is kept as the API's prefix and its query string sent with every request)
     * @param timeout how long one query may take, end to end
     */
    PrometheusApi(URI base, Duration timeout) {
        this(base, timeout, defaultBudget());
    }

    /** As above, with {@code budgetBytes} for the answers read at once (tests use a small one). */
    PrometheusApi(URI base, Duration timeout, long budgetBytes) {
        this(new QueryBackend(BackendConfig.of(base)), timeout, budgetBytes);
    }

    /** The backend's TLS, credentials, headers and parameters apply to every query ({@link QueryBackend}). */
    PrometheusApi(QueryBackend backend, Duration timeout) {
        this(backend, timeout, defaultBudget());
    }

    PrometheusApi(QueryBackend backend, Duration timeout, long budgetBytes) {
        this.backend = backend;
        this.base = backend.base();
        this.extraQuery = backend.urlQuery();
        this.timeout = timeout;
        this.budgetBytes = budgetBytes;
        this.client = backend.client(timeout.compareTo(Duration.ofSeconds(3)) < 0 ? timeout : Duration.ofSeconds(3));
    }

    /**
     * Which engine answers, asked once it answers at all (empty while it cannot be told); from then
     * on no more queries are in flight than it runs at once.
     */
    Optional<Engine> probe() {
        Optional<Engine> engine = Engine.detect(backend, client, timeout.compareTo(Duration.ofSeconds(3)) < 0 ? timeout
                : Duration.ofSeconds(3));
        engine.ifPresent(found -> slots.limit(found.queriesAtOnce()));
        return engine;
    }

    /** The most queries in flight at once now. */
    int queriesAtOnce() {
        return slots.limit();
    }

    /** The slots of the queries in flight: fewer, never more, once the engine says it runs fewer. */
    private static final class Slots extends java.util.concurrent.Semaphore {
        private int limit = MAX_IN_FLIGHT;

        Slots() {
            super(MAX_IN_FLIGHT, true);
        }

        synchronized void limit(int most) {
            if (most < limit) {
                // Slots held now are given back as usual; the count only comes down to the new limit.
                reducePermits(limit - most);
                limit = most;
            }
        }

        synchronized int limit() {
            return limit;
        }
    }

    QueryBackend backend() {
        return backend;
    }

    /** An eighth of the heap for the answers read at once, between 16 and 256 MiB. */
    static long defaultBudget() {
        return Math.clamp(Runtime.getRuntime().maxMemory() / 8, 16L << 20, 256L << 20);
    }

    private static java.util.concurrent.ScheduledThreadPoolExecutor deadlines() {
        java.util.concurrent.ScheduledThreadPoolExecutor timer = new java.util.concurrent.ScheduledThreadPoolExecutor(1,
                runnable -> {
                    Thread thread = new Thread(runnable, "prometheus-deadlines");
                    thread.setDaemon(true);
                    return thread;
                });
        timer.setRemoveOnCancelPolicy(true);
        return timer;
    }

    /** Where the queries go, without credentials (and without the URL's query string). */
    URI base() {
        return base;
    }

    /**
     * Closes {@code body} once {@code after} has passed, which ends a read blocked on a peer that
     * sent its headers and went silent; the caller cancels the returned alarm when it has read.
     * For the exchanges outside the queries (the engine's buildinfo and flags).
     */
    static java.util.concurrent.ScheduledFuture<?> closeAfter(InputStream body, Duration after) {
        return DEADLINES.schedule(() -> {
            try {
                body.close();
            } catch (IOException ignored) {
                // Closing is all that was wanted.
            }
        }, after.toNanos(), java.util.concurrent.TimeUnit.NANOSECONDS);
    }

    /**
     * The engine's recording rules as its rules API lists them ({@code api/v1/rules}, recording
     * rules only, the console's groups asked by name where the engine filters by them), asked in a
     * query's slot (it is one more request the engine answers at once) on a virtual thread; empty
     * where no slot came free or it does not answer 200 within the bounds of the exchanges outside
     * the queries (a gateway that does not pass the path, an answer past their size).
     * {@link RuleAdvice#listed} reads it.
     */
    CompletableFuture<Optional<String>> rules() {
        StringBuilder query = new StringBuilder("type=record");
        RuleAdvice.GROUPS.forEach(group -> query.append("&rule_group%5B%5D=").append(URLEncoder.encode(group,
                StandardCharsets.UTF_8)));
        URI url = URI.create(base.resolve("api/v1/rules") + "?" + query + (extraQuery.isEmpty() ? "" : "&" + extraQuery));
        Duration limit = timeout.compareTo(Duration.ofSeconds(3)) < 0 ? timeout : Duration.ofSeconds(3);
        return CompletableFuture.supplyAsync(() -> {
            if (!slotFreed()) {
                return Optional.<String>empty();
            }
            try {
                return Engine.get(backend, client, url, limit).filter(answer -> answer.status() == 200)
                        .map(Engine.Answer::body);
            } finally {
                slots.release();
            }
        }, WAITING);
    }

    /** The queries in flight now (for tests: none is left behind once its deadline has passed). */
    int inFlight() {
        return slots.limit() - slots.availablePermits();
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

    /**
     * Waits for every answer of a batch (each is bounded by its deadlines) and fails with the first
     * failure in the batch's order that says why, rather than one that was not sent because the
     * slots were taken: which query lost the race for a slot is chance, the cause is not.
     */
    static void awaitAll(List<? extends CompletableFuture<?>> answers) throws SourceUnavailableException {
        CompletableFuture<?> notSent = null;
        for (CompletableFuture<?> answer : answers) {
            try {
                answer.join();
            } catch (CompletionException failed) {
                if (!(failed.getCause() instanceof QueryFailed query && query.notSent)) {
                    await(answer);
                }
                notSent = notSent == null ? answer : notSent;
            }
        }
        if (notSent != null) {
            await(notSent);
        }
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

    /**
     * Sends the query once a slot is free, waiting for it on a virtual thread of its own: the caller
     * gets its future at once, so a batch's queries all wait together and its first failure shows
     * after one timeout, not after each query in turn has waited for a slot.
     */
    private CompletableFuture<Answer> post(PromQl.Query query, String path, Map<String, String> form) {
        return CompletableFuture.runAsync(() -> slot(query), WAITING)
                .thenCompose(sent -> exchange(query, path, form));
    }

    private static final java.util.concurrent.Executor WAITING =
            java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor();

    private void slot(PromQl.Query query) {
        if (slotFreed()) {
            return;
        }
        if (Thread.currentThread().isInterrupted()) {
            throw new QueryFailed(query, "interrupted while waiting to query Prometheus", null);
        }
        // Not one slot came free for a whole timeout: the queries holding them are what a reader
        // needs to hear about (still unanswered, or the last that failed and why).
        String last = lastFailure;
        throw new QueryFailed(query, slots.limit() + " queries already in flight to Prometheus at " + base
                + " did not answer within " + seconds(timeout) + " s; this one was not sent"
                + (last == null ? "" : " (the last to fail: " + last + ")"), null, true);
    }

    /**
     * Takes a slot, waiting a whole timeout at most: false where none came free, or where the wait
     * was interrupted (the thread's flag is set again for its caller to see).
     */
    private boolean slotFreed() {
        try {
            return slots.tryAcquire(timeout.toNanos(), java.util.concurrent.TimeUnit.NANOSECONDS);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** The exchange, a slot held: it has the whole timeout from now on, and gives the slot back when done. */
    private CompletableFuture<Answer> exchange(PromQl.Query query, String path, Map<String, String> form) {
        long deadline = System.nanoTime() + timeout.toNanos();
        CompletableFuture<Answer> answer;
        try {
            StringBuilder body = new StringBuilder();
            form.forEach((key, value) -> body.append(body.isEmpty() ? "" : "&").append(key).append('=')
                    .append(URLEncoder.encode(value, StandardCharsets.UTF_8)));
            body.append(backend.extraForm(path.equals("api/v1/query")));
            HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path
                            + (extraQuery.isEmpty() ? "" : "?" + extraQuery)))
                    .timeout(timeout)
                    .header("Content-Type", "application/x-www-form-urlencoded")
                    .header("Accept", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(body.toString()));
            try {
                backend.decorate(request);
            } catch (java.io.IOException unreadable) {
                throw new QueryFailed(query, "the credentials for " + base + " cannot be read: "
                        + unreadable.getMessage(), null);
            }
            answer = attempt(query, request.build(), deadline, 0, false);
        } catch (RuntimeException failed) {
            slots.release();
            throw failed;
        }
        answer.whenComplete((done, failure) -> {
            lastFailure = failure == null ? null : String.valueOf((failure instanceof CompletionException
                    && failure.getCause() != null ? failure.getCause() : failure).getMessage());
            slots.release();
        });
        return answer;
    }

    /**
     * Sends the request; a connection closed before any answer is sent once more ({@code resent}
     * says it was), an engine that says it is overloaded is asked again after a pause while the
     * deadline allows ({@link #overload}), and says why when it never answers.
     */
    private CompletableFuture<Answer> attempt(PromQl.Query query, HttpRequest request, long deadline, int retries,
                                              boolean resent) {
        return client.sendAsync(request, HttpResponse.BodyHandlers.ofInputStream())
                .handle((response, failure) -> {
                    if (failure == null) {
                        return answered(query, request, response, deadline, retries, resent);
                    }
                    long left = deadline - System.nanoTime();
                    if (!resent && closedBeforeAnswering(failure) && left > MIN_ATTEMPT_NANOS) {
                        return attempt(query, within(request, left), deadline, retries, true);
                    }
                    throw new QueryFailed(query, unreachable(failure), failure);
                })
                .thenCompose(next -> next);
    }

    /** The answer read, or, where the engine says it is overloaded, the query asked again after a pause. */
    private CompletableFuture<Answer> answered(PromQl.Query query, HttpRequest request,
                                               HttpResponse<InputStream> response, long deadline, int retries,
                                               boolean resent) {
        Read read = read(response);
        if (read.overloaded().isEmpty()) {
            return CompletableFuture.completedFuture(checked(query, response, read.body(), deadline));
        }
        Optional<String> overloaded = read.overloaded();
        long pause = pause(response, retries);
        long left = deadline - System.nanoTime() - pause;
        if (left < MIN_ATTEMPT_NANOS) {
            throw new QueryFailed(query, "Prometheus at " + base + " answered HTTP " + response.statusCode()
                    + ", overloaded, " + (retries + 1) + (retries == 0 ? " time" : " times") + " within "
                    + seconds(timeout) + " s" + (overloaded.get().isEmpty() ? "" : " (it said: "
                    + overloaded.get() + ")") + "; it runs fewer queries at once than are sent to it",
                    null);
        }
        HttpRequest again = within(request, left);
        return CompletableFuture.runAsync(() -> { },
                        CompletableFuture.delayedExecutor(pause, java.util.concurrent.TimeUnit.NANOSECONDS))
                .thenCompose(paused -> attempt(query, again, deadline, retries + 1, resent));
    }

    /** {@code request} again, to be answered within {@code nanos}. */
    private static HttpRequest within(HttpRequest request, long nanos) {
        return HttpRequest.newBuilder(request, (name, value) -> true).timeout(Duration.ofNanos(nanos)).build();
    }

    /**
     * Whether {@code failure} is a connection closed before any byte of an answer came (the JDK's
     * HTTP/1.1 client says "header parser received no bytes", or the peer reset it): a kept-alive
     * connection that the engine closed as it was reused, not an engine that is down.
     */
    static boolean closedBeforeAnswering(Throwable failure) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                ? failure.getCause() : failure;
        if (cause instanceof java.net.ConnectException || cause instanceof java.net.http.HttpTimeoutException) {
            return false;
        }
        String message = String.valueOf(cause.getMessage());
        return cause instanceof java.io.EOFException || cause instanceof IOException
                && (message.contains("received no bytes") || message.contains("Connection reset"));
    }

    /** The shortest time left worth another attempt. */
    private static final long MIN_ATTEMPT_NANOS = Duration.ofMillis(500).toNanos();

    /** The most of an overloaded answer's text kept for the message. */
    private static final int OVERLOAD_TEXT = 300;

    /**
     * An answer's body to read, or, where the engine says it is overloaded, the first line it said
     * (bounded, printable; the body is then closed).
     */
    private record Read(InputStream body, Optional<String> overloaded) {
    }

    /**
     * Whether the answer says the engine is overloaded: HTTP 429, or 503 whose body is not a JSON
     * object (Prometheus's own 503 is a JSON error, a query that timed out, not worth sending again).
     */
    private static Read read(HttpResponse<InputStream> response) {
        int status = response.statusCode();
        if (status != 429 && status != 503) {
            return new Read(response.body(), Optional.empty());
        }
        try {
            java.io.PushbackInputStream body = new java.io.PushbackInputStream(response.body(), 1);
            int first = body.read();
            if (status == 503 && first == '{') {
                body.unread(first);
                return new Read(body, Optional.empty());
            }
            byte[] start = body.readNBytes(OVERLOAD_TEXT);
            body.close();
            String text = ((first < 0 ? "" : String.valueOf((char) first))
                    + new String(start, StandardCharsets.UTF_8)).lines().findFirst().orElse("");
            return new Read(InputStream.nullInputStream(), Optional.of(text.replaceAll("[^\\p{Print}]", "?").strip()));
        } catch (IOException unreadable) {
            return new Read(InputStream.nullInputStream(), Optional.of(""));
        }
    }

    /** How long to wait before asking again: the engine's {@code Retry-After} seconds, else 0.25 s doubling to 4 s. */
    private static long pause(HttpResponse<InputStream> response, int retries) {
        OptionalLong told = response.headers().firstValue("Retry-After").map(String::strip)
                .filter(value -> value.matches("\\d{1,4}")).map(value -> OptionalLong.of(Long.parseLong(value)))
                .orElse(OptionalLong.empty());
        long millis = told.isPresent() ? Math.clamp(told.getAsLong() * 1000, 100, 5_000)
                : (250L << Math.min(retries, 4)) * (100 + java.util.concurrent.ThreadLocalRandom.current().nextInt(50))
                / 100;
        return Duration.ofMillis(millis).toNanos();
    }

    private static String seconds(Duration duration) {
        return Double.toString(duration.toMillis() / 1000.0);
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

    private Answer decode(PromQl.Query query, HttpResponse<InputStream> response, InputStream body, long deadline) {
        BoundedStream bounded = new BoundedStream(body);
        long left = deadline - System.nanoTime();
        java.util.concurrent.ScheduledFuture<?> alarm = DEADLINES.schedule(bounded::expire, Math.max(0, left),
                java.util.concurrent.TimeUnit.NANOSECONDS);
        try (InputStream in = bounded; JsonParser parser = JSON.createParser(in)) {
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
            if (bounded.expired) {
                throw new QueryFailed(query, "Prometheus at " + base + " did not send its whole answer within "
                        + seconds(timeout) + " s (HTTP " + response.statusCode() + ", " + bounded.read
                        + " bytes came; the read was abandoned)", unreadable);
            }
            if (bounded.overBudget != null) {
                throw new QueryFailed(query, bounded.overBudget, unreadable);
            }
            throw new QueryFailed(query, "Prometheus at " + base + " answered HTTP " + response.statusCode()
                    + " with something that is not its JSON (" + unreadable.getMessage() + ")", unreadable);
        } finally {
            alarm.cancel(false);
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

    private Answer checked(PromQl.Query query, HttpResponse<InputStream> response, InputStream body, long deadline) {
        if (response.statusCode() / 100 == 3) {
            try (InputStream ignored = response.body()) {
                throw new QueryFailed(query, "Prometheus at " + base + " answered HTTP " + response.statusCode()
                        + " redirecting to " + response.headers().firstValue("Location").orElse("nowhere")
                        + ": redirects are not followed (credentials would go along); give the address that "
                        + "answers", null);
            } catch (IOException closing) {
                throw new QueryFailed(query, "Prometheus at " + base + " answered HTTP " + response.statusCode(),
                        closing);
            }
        }
        Answer answer = decode(query, response, body, deadline);
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
        /** Not sent for want of a slot: a consequence of other queries' trouble, not its cause. */
        final boolean notSent;

        QueryFailed(PromQl.Query query, String message, Throwable cause) {
            this(query, message, cause, false);
        }

        QueryFailed(PromQl.Query query, String message, Throwable cause, boolean notSent) {
            super(message + " [query " + query.name() + "]", cause);
            this.notSent = notSent;
        }
    }

    /**
     * An answer's body as it streams: its bytes count against the budget shared by every answer
     * being read (given back when it is closed); {@link #expire} closes it at its deadline, which
     * ends a read blocked on a silent peer.
     */
    private final class BoundedStream extends java.io.FilterInputStream {
        volatile boolean expired;
        volatile String overBudget;
        long read;
        private boolean closed;

        BoundedStream(InputStream in) {
            super(in);
        }

        void expire() {
            expired = true;
            try {
                in.close();
            } catch (IOException ignored) {
                // Closing is all that was wanted.
            }
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            int n = read(one, 0, 1);
            return n < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            int n = super.read(buffer, offset, length);
            if (n > 0) {
                read += n;
                if (inFlightBytes.addAndGet(n) > budgetBytes) {
                    overBudget = "the answers being read from Prometheus at " + base + " passed "
                            + (budgetBytes >> 20) + " MiB together (this one " + read + " bytes so far); it was "
                            + "abandoned to keep the console's memory bounded — narrow the page, or give the "
                            + "console more heap";
                    throw new IOException(overBudget);
                }
            }
            return n;
        }

        @Override
        public void close() throws IOException {
            synchronized (this) {
                if (closed) {
                    return;
                }
                closed = true;
            }
            inFlightBytes.addAndGet(-read);
            super.close();
        }
    }
}
