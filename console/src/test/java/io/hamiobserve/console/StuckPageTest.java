package io.hamiobserve.console;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.time.Instant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The Stuck page and the Capacity page's unmet demand, over {@link FixedHistory}'s stuck list. */
class StuckPageTest {
    private static final Instant NOW = Instant.parse("2026-11-30T12:00:00Z");

    @RegisterExtension
    final ServedConsole served = new ServedConsole();
    private FixedHistory history;

    private String start(ConsoleSettings settings) {
        history = new FixedHistory();
        return served.start(history, settings, NOW);
    }

    private String get(String url) throws Exception {
        return served.get(url);
    }

    @Test
    void eachGhostAndZombieCarriesItsAgeAndCardHours() throws Exception {
        String base = start(ConsoleSettings.defaults());
        String html = get(base + "/stuck");
        assertTrue(html.contains("Ghost allocations"), html);
        // Half a card held two hours past its deletion: one card-hour.
        String csv = get(base + "/stuck?export=ghosts.csv");
        assertTrue(csv.contains("ml-team/train-old,node-a,GPU-A1,deleting,"), csv);
        assertTrue(csv.lines().anyMatch(line -> line.equals("ml-team/train-old,node-a,GPU-A1,deleting,7200,0.5,1")), csv);
        // The zombie: 4 GiB of a 40 GiB card for an hour is a tenth of a card-hour; no known pod.
        String zombies = get(base + "/stuck?export=zombies.json");
        assertTrue(zombies.contains("no known pod"), zombies);
        assertTrue(zombies.contains("0.1"), zombies);
        assertTrue(get(base + "/stuck?export=idle.csv").contains("ml-team/notebook (lab)"));
        assertTrue(get(base + "/stuck?export=pending.csv").contains("insufficient_memory"));
        assertTrue(html.contains("href=\"/node?name=node-a\""), "a ghost links to its node");
    }

    @Test
    void hostileNamesStayInertText() throws Exception {
        String base = start(ConsoleSettings.defaults());
        for (String page : new String[] {"/stuck", "/capacity"}) {
            String html = get(base + page);
            assertFalse(html.contains("<script>alert"), page);
            assertFalse(html.contains("<svg onload"), page);
            assertTrue(html.contains("&lt;script&gt;alert('ns')&lt;/script&gt;"), page + ": shown, escaped");
        }
    }

    @Test
    void theCapacityPageShowsPendingDemandNextToWhatStillFits() throws Exception {
        String base = start(ConsoleSettings.defaults());
        String html = get(base + "/capacity");
        assertTrue(html.contains("What still fits"), html);
        assertTrue(html.contains("Pods waiting for a GPU"), html);
        assertTrue(html.contains("insufficient_memory"), html);
        assertTrue(get(base + "/capacity?export=pending.csv").contains("ml-team,insufficient_memory,3,"));
    }

    @Test
    void theIdleThresholdIsTheSettingsAndTheNavigationNamesThePage() throws Exception {
        String base = start(ConsoleSettings.defaults().withIdleAfter(Duration.ofHours(6)));
        String html = get(base + "/stuck");
        assertTrue(html.contains("no kernel for 6h") || html.contains("no kernel for 6 h"), html);
        assertTrue(get(base + "/").contains(">Stuck</a>"), "the navigation lists the page");
    }
}
