package io.hamiobserve.adapters.prometheus;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Whether the engine runs the console's recording rules, and what an operator does where it does
 * not. Without them every window and chart the rules would serve is computed from the raw series:
 * the same figures, at their cost (seconds a page at 10,000 containers, docs/benchmarks.md). A
 * console slow for that reason says so in its source line, beside the engine's own notes.
 *
 * <p>Two answers tell it. An engine that lists its rules ({@code api/v1/rules}: Prometheus, Thanos
 * Query, Mimir's ruler) names the groups it loaded and each rule's last error: a group of the rule
 * file missing there (an earlier file) or failing is named. Where the engine lists none of them
 * (VictoriaMetrics, whose rules a vmalert beside it runs; a Prometheus whose records come from
 * elsewhere), the markers every run writes ({@link RecordingRules#EVALUATED}) say whether any group
 * ran in the last {@link #RECENT}; only where none did is that said. A rule's error is the engine's
 * text: one line, bounded, and shown escaped as every page's text is.
 */
final class RuleAdvice {
    private RuleAdvice() {
    }

    /** The rule file's groups, by name ({@code RuleAdviceTest} holds this list to the file's). */
    static final List<String> GROUPS = List.of("hami-observe-console-hourly", "hami-observe-console-showback",
            "hami-observe-console-owners", "hami-observe-console-funnel", "hami-observe-console-card-lines");
    /** How far back a run counts: an hourly group's interval twice. */
    static final String RECENT = "2h";
    /** How many runs of any console group the engine holds over the last {@link #RECENT}: one small series. */
    static final PromQl.Query RAN = new PromQl.Query("console_rules_ran",
            "count(count_over_time(" + RecordingRules.EVALUATED + "[" + RECENT + "]))");
    /** Where to get the rules, as the advice says it. */
    static final String RULE_FILE = "alerts/hami-observe-console.rules.yml";
    /** The longest error of the engine's shown, in characters. */
    static final int LONGEST_ERROR = 160;

    private static final JsonMapper JSON = JsonMapper.builder().build();

    /**
     * The console's groups that a rules API answer lists, each with the first error of its rules
     * ("" where none failed); empty where {@code body} is not that API's answer (not JSON, not
     * {@code success}, no list of groups). Groups of other names are not read.
     */
    static Optional<Map<String, String>> listed(String body) {
        JsonNode root;
        try {
            root = JSON.readTree(body);
        } catch (JacksonException notJson) {
            return Optional.empty();
        }
        JsonNode groups = root.path("data").path("groups");
        if (!root.path("status").asString("").equals("success") || !groups.isArray()) {
            return Optional.empty();
        }
        Map<String, String> listed = new TreeMap<>();
        for (JsonNode group : groups) {
            String name = group.path("name").isString() ? group.path("name").asString() : "";
            if (!GROUPS.contains(name)) {
                continue;
            }
            String error = "";
            for (JsonNode rule : group.path("rules")) {
                if (rule.path("health").isString() && rule.path("health").asString().equals("err")) {
                    error = oneLine(rule.path("lastError").isString() ? rule.path("lastError").asString() : "");
                    error = error.isEmpty() ? "an error the engine did not say" : error;
                    break;
                }
            }
            // The same group listed twice (two rule files, or rulers behind one Thanos): a failure wins.
            listed.merge(name, error, (first, second) -> first.isEmpty() ? second : first);
        }
        return Optional.of(listed);
    }

    /**
     * What to tell an operator, from the groups the engine's rules API listed ({@link #listed};
     * empty where it did not answer) and whether any group's marker was written in the last
     * {@link #RECENT} (empty where that was not answered): nothing where the rules run, or cannot be
     * told not to.
     */
    static Optional<String> advice(Optional<Map<String, String>> listed, Optional<Boolean> ranLately) {
        if (listed.isPresent() && !listed.get().isEmpty()) {
            List<String> wrong = new ArrayList<>();
            List<String> missing = GROUPS.stream().filter(group -> !listed.get().containsKey(group)).toList();
            if (!missing.isEmpty()) {
                wrong.add((missing.size() == 1 ? "group " : "groups ") + String.join(", ", missing)
                        + " not loaded (an earlier rule file?)");
            }
            listed.get().forEach((group, error) -> {
                if (!error.isEmpty()) {
                    wrong.add("group " + group + " failing: " + error);
                }
            });
            return wrong.isEmpty() ? Optional.empty() : Optional.of("recording rules: " + String.join("; ", wrong)
                    + "; what they record is computed from the raw series (load the current " + RULE_FILE + ")");
        }
        if (ranLately.equals(Optional.of(false))) {
            return Optional.of("recording rules: none ran here in the last " + RECENT + "; every window and chart is "
                    + "computed from the raw series, at their cost (load " + RULE_FILE + " into the engine or its "
                    + "vmalert: docs/console.md, Recording rules)");
        }
        return Optional.empty();
    }

    /** An engine's text as one bounded line: control characters as spaces, at most {@link #LONGEST_ERROR}. */
    static String oneLine(String text) {
        String line = text.codePoints().map(c -> Character.isISOControl(c) ? ' ' : c)
                .collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append).toString()
                .replaceAll(" {2,}", " ").strip();
        if (line.codePointCount(0, line.length()) <= LONGEST_ERROR) {
            return line;
        }
        return line.substring(0, line.offsetByCodePoints(0, LONGEST_ERROR)) + "…";
    }
}
