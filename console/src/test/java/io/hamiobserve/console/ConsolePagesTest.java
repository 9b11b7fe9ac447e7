package io.hamiobserve.console;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.http.HttpResponse;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The page registry: the routes and the navigation come from the pages' declarations, and only from them. */
class ConsolePagesTest {
    private static final Instant NOW = Instant.parse("2026-11-30T12:00:00Z");
    private static final Pattern NAV = Pattern.compile("<nav class=\"main\">(.*?)</nav>", Pattern.DOTALL);
    private static final Pattern NAV_LINK = Pattern.compile("<a href=\"([^\"]*)\"( class=\"current\")?>([^<]*)</a>");

    @RegisterExtension
    final ServedConsole served = new ServedConsole();

    private String start(ConsoleSettings settings) {
        return served.start(new FixedHistory(), settings, NOW);
    }

    private HttpResponse<String> get(String url) throws Exception {
        return served.send(url);
    }

    @Test
    void everyPageIsDeclaredOnceAtItsOwnPath() {
        List<String> paths = ConsolePages.ALL.stream().map(ConsolePage::path).toList();
        assertEquals(paths.size(), new HashSet<>(paths).size(), "two pages at one path: " + paths);
        assertEquals(List.of("/", "/nodes", "/node", "/cards", "/card", "/workloads", "/workload", "/namespaces",
                "/rightsizing", "/capacity", "/stuck", "/showback"), paths);
        assertEquals(List.of("Overview", "Nodes", "Cards", "Workloads", "Namespaces", "Right-sizing", "Capacity",
                "Stuck", "Showback"),
                ConsolePages.NAVIGATION.stream().map(page -> page.navigation().orElseThrow()).toList());
        assertThrows(IllegalArgumentException.class, () -> ConsolePage.unlisted("/a/b", context -> null));
        assertThrows(IllegalArgumentException.class, () -> ConsolePage.unlisted("cards", context -> null));
    }

    @Test
    void everyDeclaredPageAnswersUnderThePrefixWithTheNavigationInItsOrder() throws Exception {
        String base = start(ConsoleSettings.defaults().withRoutePrefix("/gpu"));
        for (ConsolePage page : ConsolePages.ALL) {
            HttpResponse<String> response = get(base + "/gpu" + page.path());
            String body = response.body();
            Matcher nav = NAV.matcher(body);
            assertTrue(nav.find(), page.path() + " is a console page: " + body);
            List<String> shown = new ArrayList<>();
            List<String> current = new ArrayList<>();
            Matcher link = NAV_LINK.matcher(nav.group(1));
            while (link.find()) {
                shown.add(link.group(3) + " " + link.group(1));
                if (link.group(2) != null) {
                    current.add(link.group(3));
                }
            }
            assertEquals(ConsolePages.NAVIGATION.stream().map(p -> p.navigation().orElseThrow() + " /gpu" + p.path())
                    .toList(), shown, page.path());
            // A listed page is marked in the navigation; one reached by links (a node, a card) marks none.
            assertEquals(page.navigation().map(List::of).orElse(List.of()), current, page.path());
        }
        // A path no page declares is not the console's.
        HttpResponse<String> none = get(base + "/gpu/nodez");
        assertEquals(404, none.statusCode());
        assertFalse(none.body().contains("<nav class=\"main\">"));
    }

    @Test
    void linksToAPageAreWrittenFromItsDeclaration() {
        Links links = new Links("/gpu");
        assertEquals("/gpu" + NodePage.PAGE.path() + "?name=a%20b", links.node("a b"));
        assertEquals("/gpu" + CardPage.PAGE.path() + "?uuid=GPU-1", links.card("GPU-1"));
        assertEquals("/gpu" + WorkloadPage.PAGE.path() + "?namespace=ns&pod=p&container=c",
                links.workload("ns", "p", "c"));
        assertEquals("/gpu/", links.to(OverviewPage.PAGE));
        assertEquals(Optional.of("Capacity"), CapacityPage.PAGE.navigation());
    }
}
