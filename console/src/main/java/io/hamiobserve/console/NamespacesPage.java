package io.hamiobserve.console;

import io.hamiobserve.console.Format.Kind;
import io.hamiobserve.console.PageKit.Builder;
import io.hamiobserve.console.PageKit.Request;
import io.hamiobserve.console.PageKit.Result;
import io.hamiobserve.console.view.Tiles;
import io.hamiobserve.domain.fleet.AccrualHistory;
import io.hamiobserve.domain.fleet.Chargeback;
import io.hamiobserve.domain.fleet.Figure;
import io.hamiobserve.domain.fleet.FleetScope;
import io.hamiobserve.domain.fleet.FleetState;
import io.hamiobserve.domain.fleet.Measure;
import io.hamiobserve.ports.SourceUnavailableException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Every namespace: allocation against quota now, and chargeback over the window.
 */
final class NamespacesPage extends FleetPage {
    static final ConsolePage PAGE = ConsolePage.listed("/namespaces", "Namespaces", NamespacesPage::new);

    NamespacesPage(PageContext context) {
        super(context);
    }

    @Override
    public Result build(Request request) throws SourceUnavailableException {
        fleet.ahead(() -> fleet.accruals(request.at(), window(request, Duration.ofDays(7))));
        FleetState state = fleet.state(request.at(), FleetScope.EVERYTHING);
        Builder page = page("Namespaces", request, state);
        page.queries(state.provenance());
        Duration window = window(request, Duration.ofDays(7));
        AccrualHistory accruals = fleet.accruals(request.at(), window);
        page.describes(accruals.at()).queries(accruals.provenance());
        Map<String, Figure> quotas = new LinkedHashMap<>();
        state.namespaces().stream().filter(ns -> ns.memoryQuota().isKnown())
                .forEach(ns -> quotas.put(ns.name(), ns.memoryQuota()));
        Map<String, Chargeback> bills = Chargeback.of(accruals.namespaces(), window, quotas).stream()
                .collect(Collectors.toMap(Chargeback::namespace, Function.identity()));
        List<FleetState.NamespaceSummary> namespaces = new ArrayList<>(state.namespaces());
        for (String billed : bills.keySet()) {
            if (namespaces.stream().noneMatch(ns -> ns.name().equals(billed))) {
                Figure none = Figure.missing(io.hamiobserve.domain.fleet.Absence.NOT_REPORTED);
                // A namespace that held GPUs in the window but holds none now still gets its bill.
                namespaces.add(new FleetState.NamespaceSummary(billed, 0, Figure.of(0), none, Figure.of(0), none,
                        none, none));
            }
        }
        Table<FleetState.NamespaceSummary> table = Columns.namespaces(links, bills);
        Optional<Result> export = export(request, Map.of("namespaces", rows(table, namespaces)));
        if (export.isPresent()) {
            return export.get();
        }
        double allocated = bills.values().stream().map(Chargeback::memoryAllocatedGibHours).filter(Figure::isKnown)
                .mapToDouble(Figure::orElseThrow).sum();
        double used = bills.values().stream().map(Chargeback::memoryUsedGibHours).filter(Figure::isKnown)
                .mapToDouble(Figure::orElseThrow).sum();
        page.add(new Tiles(List.of(
                PageKit.tile("GPU memory held", Figure.of(allocated), Kind.HOURS, "GiB-hours over "
                        + Format.duration(window), "", page.anchors().get(Measure.NAMESPACE_MEMORY_ALLOCATED_SECONDS)),
                PageKit.tile("GPU memory used", Figure.of(used), Kind.HOURS, "GiB-hours over "
                        + Format.duration(window), "", page.anchors().get(Measure.NAMESPACE_MEMORY_USED_SECONDS)),
                PageKit.tile("Efficiency", Figure.of(used).fractionOf(Figure.of(allocated)), Kind.FRACTION,
                        "used ÷ held", "", null))));
        page.add(windowChoices(request, "7d"));
        page.add(view(table, namespaces, request, page.anchors(), "Now: allocation and use against each quota. Over "
                + "the window: GPU-memory-hours and card-hours held and used (chargeback); export as CSV for a "
                + "spreadsheet.", "No namespace holds GPU shares."));
        return page.html();
    }
}
