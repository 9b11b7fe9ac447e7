package io.hamiobserve.console;

import java.util.List;

/**
 * The console's pages, each declared by its class ({@code PAGE}); the routes and the navigation
 * (in this order, the pages that have a name there) come from this list. Adding a page is one new
 * class extending {@link FleetPage} with its {@link ConsolePage} declaration, and one line here.
 */
final class ConsolePages {
    static final List<ConsolePage> ALL = List.of(
            OverviewPage.PAGE,
            NodesPage.PAGE,
            NodePage.PAGE,
            CardsPage.PAGE,
            CardPage.PAGE,
            WorkloadsPage.PAGE,
            WorkloadPage.PAGE,
            NamespacesPage.PAGE,
            RightsizingPage.PAGE,
            CapacityPage.PAGE,
            StuckPage.PAGE,
            ShowbackPage.PAGE);

    /** The pages named in the navigation, in its order. */
    static final List<ConsolePage> NAVIGATION = ALL.stream().filter(page -> page.navigation().isPresent()).toList();

    private ConsolePages() {
    }
}
