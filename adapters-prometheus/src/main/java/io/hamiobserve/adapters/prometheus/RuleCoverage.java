package io.hamiobserve.adapters.prometheus;

import io.hamiobserve.adapters.prometheus.PrometheusApi.Sample;
import io.hamiobserve.ports.SourceUnavailableException;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Whether the console's recorded series cover a window as well as the raw series do: each rule
 * group must have run in every hour of the window that has raw history (one hour of slack, for
 * the hour being recorded). Rules deployed after the exporters cover a window only once the
 * window no longer reaches back before them; until then the raw series answer, at their cost.
 * Without the rules (a Prometheus that does not load them) the raw series always answer.
 *
 * <p>The answer changes at most hourly, so it is kept for {@link #KEEP} per window: two small
 * queries (a few series at hourly steps) once in a while, not before every page.
 */
final class RuleCoverage {
    static final Duration KEEP = Duration.ofMinutes(5);
    /** Windows come from requests (any whole hours or days up to 90 days): few are kept. */
    private static final int MAX_WINDOWS = 64;

    private final PrometheusApi api;
    private final Map<Duration, Known> known = new ConcurrentHashMap<>();

    private record Known(Instant at, Map<String, Long> ruleHours, long historyHours, Map<String, Long> lastRunMillis) {
    }

    RuleCoverage(PrometheusApi api) {
        this.api = api;
    }

    boolean covers(RecordingRules.Group group, Instant at, Duration window) throws SourceUnavailableException {
        Known answer = answer(at, window);
        long ruleHours = answer.ruleHours().getOrDefault(group.label, 0L);
        return ruleHours > 0 && ruleHours + 1 >= answer.historyHours();
    }

    /**
     * When the group last ran before the window's end, as the coverage was last asked (at most
     * {@link #KEEP} ago: a later run is then not read yet, and what it recorded is computed raw).
     */
    java.util.Optional<Instant> lastRun(RecordingRules.Group group, Instant at, Duration window)
            throws SourceUnavailableException {
        Long millis = answer(at, window).lastRunMillis().get(group.label);
        return millis == null ? java.util.Optional.empty() : java.util.Optional.of(Instant.ofEpochMilli(millis));
    }

    private Known answer(Instant at, Duration window) throws SourceUnavailableException {
        Known answer = known.get(window);
        if (answer == null || Duration.between(answer.at(), at).abs().compareTo(KEEP) > 0) {
            answer = ask(at, window);
            if (known.size() >= MAX_WINDOWS) {
                known.clear();
            }
            known.put(window, answer);
        }
        return answer;
    }

    private Known ask(Instant at, Duration window) throws SourceUnavailableException {
        CompletableFuture<List<Sample>> rules = api.instant(FleetQueries.RULE_HOURS.bind("window", window), at);
        CompletableFuture<List<Sample>> history = api.instant(FleetQueries.HISTORY_HOURS.bind("window", window), at);
        CompletableFuture<List<Sample>> lastRuns = api.instant(FleetQueries.RULES_LAST_RUN.plain(), at);
        Map<String, Long> ruleHours = new java.util.HashMap<>();
        for (Sample sample : PrometheusApi.await(rules)) {
            if (!Double.isNaN(sample.value())) {
                ruleHours.put(sample.label("group"), Math.round(sample.value()));
            }
        }
        long historyHours = PrometheusApi.await(history).stream().mapToDouble(Sample::value)
                .filter(value -> !Double.isNaN(value)).mapToLong(Math::round).max().orElse(0);
        Map<String, Long> lastRunMillis = new java.util.HashMap<>();
        for (Sample sample : PrometheusApi.await(lastRuns)) {
            if (Double.isFinite(sample.value())) {
                lastRunMillis.put(sample.label("group"), Math.round(sample.value() * 1000));
            }
        }
        return new Known(at, Map.copyOf(ruleHours), historyHours, Map.copyOf(lastRunMillis));
    }
}
