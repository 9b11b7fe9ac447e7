package io.hamiobserve.adapters.prometheus;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class PromQlTest {
    @Test
    void labelValuesAreQuotedWithEverythingThatCouldEndTheStringEscaped() {
        assertEquals("\"gpu-node-a\"", PromQl.quote("gpu-node-a"));
        assertEquals("\"a\\\"} or vector(1) # \\\\\"", PromQl.quote("a\"} or vector(1) # \\"));
        assertEquals("\"line\\x0anext\\x09tab\\x00nul\\x7f\"", PromQl.quote("line\nnext\ttab\0nul\u007f"));
        assertEquals("\"<script>alert(1)</script>\"", PromQl.quote("<script>alert(1)</script>"));
        assertEquals("\"Größe 🚀\"", PromQl.quote("Größe 🚀"));
        assertEquals("\"\uFFFDx\"", PromQl.quote("\uD800x"));
    }

    @Test
    void templatesTakeLabelValuesDurationsAndNumbersOnly() {
        PromQl.Template template = new PromQl.Template("t", "x{node=${node}}[${window}] * ${factor}");
        PromQl.Query query = template.bind(Map.of("node", "a\"b", "window", Duration.ofDays(14), "factor", 60L));
        assertEquals("t", query.name());
        assertEquals("x{node=\"a\\\"b\"}[1209600s] * 60", query.expression());
        assertThrows(IllegalArgumentException.class, () -> template.bind("node", "a"));
        assertThrows(IllegalArgumentException.class,
                () -> template.bind(Map.of("node", new Object(), "window", Duration.ZERO, "factor", 1)));
        assertThrows(IllegalArgumentException.class,
                () -> template.bind(Map.of("node", "a", "window", Duration.ZERO, "factor", Double.NaN)));
        assertEquals("1s", PromQl.duration(Duration.ofMillis(10)));
    }

    @Test
    void aReplacementLookingLikeARegexGroupIsTakenLiterally() {
        PromQl.Template template = new PromQl.Template("t", "x{pod=${pod}}");
        assertEquals("x{pod=\"$1\\\\$0\"}", template.bind("pod", "$1\\$0").expression());
    }

    @Test
    void aSelectionOfSeveralValuesMatchesEachValueAsItIsWhateverItHolds() {
        assertEquals("max(hami_x{node=~\"a|n\\\\.\\\\*\\\\|\\\\\\\\x\\\"\\\\)\", job=\"j\"})",
                PromQl.narrowedToAny("max(hami_x{job=\"j\"})", "node", List.of("a", "n.*|\\x\")")));
        assertThrows(IllegalArgumentException.class, () -> PromQl.narrowedToAny("hami_x", "node", List.of()));
        assertThrows(IllegalArgumentException.class, () -> PromQl.narrowedToAny("hami_x", "no de", List.of("a")));
    }
}
