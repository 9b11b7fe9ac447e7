package io.hamiobserve.exposition.testing;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PromtoolTest {
    private static String exposition(int pods, String duplicate) {
        StringBuilder text = new StringBuilder("# HELP small_total One family of a few series.\n# TYPE small_total counter\n")
                .append("small_total{pod=\"a\"} 1\nsmall_total{pod=\"b\"} 2\n")
                // A raw carriage return in a label value: not an end of line in the text format.
                .append("small_total{pod=\"c\rr\"} 3\n")
                .append("# HELP big_bytes A family of many series.\n# TYPE big_bytes gauge\n");
        for (int i = 0; i < pods; i++) {
            text.append("big_bytes{pod=\"p").append(i).append("\",note=\"a } and a space\"} ").append(i).append('\n');
        }
        text.append(duplicate)
                .append("# HELP wait_seconds A histogram.\n# TYPE wait_seconds histogram\n")
                .append("wait_seconds_bucket{le=\"1\"} 1\nwait_seconds_bucket{le=\"+Inf\"} 2\n")
                .append("wait_seconds_sum 3\nwait_seconds_count 2\n")
                .append("# HELP empty_total A family with no series.\n# TYPE empty_total counter\n");
        return text.toString();
    }

    @Test
    void aLargeFamilyIsCheckedInPiecesThatTogetherHoldEveryLineOnce() throws Exception {
        String exposition = exposition(1_234, "");
        List<String> pieces = Promtool.pieces(exposition);
        assertEquals(5, pieces.size(), "1,234 series in slices of 250");
        List<String> samples = new ArrayList<>();
        for (String piece : pieces) {
            long big = piece.lines().filter(line -> line.startsWith("big_bytes{")).count();
            assertTrue(big <= Promtool.SERIES_PER_CHECK, big + " series of one family in a piece");
            assertTrue(big == 0 || piece.contains("# TYPE big_bytes gauge\nbig_bytes{"), "each slice under its header");
            List.of(piece.split("\n")).stream().filter(line -> !line.startsWith("#")).forEach(samples::add);
        }
        assertEquals(List.of(exposition.split("\n")).stream().filter(line -> !line.startsWith("#")).sorted().toList(),
                samples.stream().sorted().toList());
        assertTrue(pieces.getFirst().contains("wait_seconds_count 2") && pieces.getFirst().contains("# TYPE empty_total"));
        Promtool.assertClean(exposition);
    }

    @Test
    void aSeriesWrittenTwiceFailsEvenWhenItsTwoLinesFallInDifferentPieces() {
        String twice = "big_bytes{pod=\"p3\",note=\"a } and a space\"} 7\n";
        assertEquals(List.of(twice.substring(0, twice.lastIndexOf('}') + 1)),
                Promtool.duplicateSeries(exposition(1_234, twice)));
        assertThrows(AssertionError.class, () -> Promtool.assertClean(exposition(1_234, twice)));
    }
}
