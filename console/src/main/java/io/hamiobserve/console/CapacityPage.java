package io.hamiobserve.console;

import io.hamiobserve.console.PageKit.Builder;
import io.hamiobserve.console.PageKit.Request;
import io.hamiobserve.console.PageKit.Result;
import io.hamiobserve.console.view.ShapeForm;
import io.hamiobserve.console.view.Tiles;
import io.hamiobserve.domain.fleet.Capacity;
import io.hamiobserve.domain.fleet.FleetScope;
import io.hamiobserve.domain.fleet.FleetState;
import io.hamiobserve.domain.fleet.Measure;
import io.hamiobserve.domain.fleet.PodShape;
import io.hamiobserve.domain.fleet.Recommendation;
import io.hamiobserve.domain.fleet.RightSizing;
import io.hamiobserve.domain.fleet.Stuck;
import io.hamiobserve.ports.SourceUnavailableException;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * How many pods of a shape fit now, per card model.
 */
final class CapacityPage extends FleetPage {
    static final ConsolePage PAGE = ConsolePage.listed("/capacity", "Capacity", CapacityPage::new);

    CapacityPage(PageContext context) {
        super(context);
    }

    @Override
    public Result build(Request request) throws SourceUnavailableException {
        // What would fit after right-sizing needs every container's recommendation: the same
        // usage read the Right-sizing page makes (kept by the console's refresh), asked first.
        fleet.ahead(() -> fleet.usage(request.at(), window(request), RightSizing.MIN_HISTORY, FleetScope.EVERYTHING));
        FleetState state = fleet.state(request.at(), FleetScope.EVERYTHING);
        Builder page = page("Capacity", request, state);
        Map<Measure, String> queries = page.queries(state.provenance());
        String memory = request.get("memory").isBlank() ? "4096" : request.get("memory");
        String cores = request.get("cores").isBlank() ? "10" : request.get("cores");
        String cards = request.get("cards").isBlank() ? "1" : request.get("cards");
        PodShape shape;
        try {
            shape = new PodShape(Long.parseLong(memory.trim()), Long.parseLong(cores.trim()),
                    Integer.parseInt(cards.trim()));
        } catch (IllegalArgumentException bad) {
            String message = bad instanceof NumberFormatException ? "memory, cores and cards are whole numbers"
                    : bad.getMessage();
            page.add(new ShapeForm(links.to(PAGE), memory, cores, cards, message, links.cluster().orElse(null)));
            return page.html(400);
        }
        List<Recommendation> recommendations = List.copyOf(recommendations(request, state.workloads(), page,
                FleetScope.EVERYTHING).values());
        List<Capacity.ModelCapacity> models = Capacity.of(state.cards(), shape, recommendations);
        // Unmet demand, read once with the stuck list (a fixed set of queries).
        Stuck demand = fleet.stuck(request.at(), settings.idleAfter());
        Optional<Result> export = export(request, Map.of("capacity", rows(Columns.capacity(), models),
                "pending", rows(StuckPage.pending(), demand.pending())));
        if (export.isPresent()) {
            return export.get();
        }
        page.add(new ShapeForm(links.to(PAGE), memory, cores, cards, null, links.cluster().orElse(null)));
        long fits = models.stream().mapToLong(Capacity.ModelCapacity::fits).sum();
        long fitsAfter = models.stream().mapToLong(Capacity.ModelCapacity::fitsAfterRightSizing).sum();
        double givenBack = models.stream().mapToDouble(Capacity.ModelCapacity::memoryGivenBack).sum();
        double taken = models.stream().mapToDouble(Capacity.ModelCapacity::memoryTaken).sum();
        page.add(new Tiles(List.of(
                new Tiles.Tile("Pods that fit now", Long.toString(fits), shape.memoryMib() + " MiB × " + shape.cores()
                        + " % on " + shape.cards() + " card" + (shape.cards() == 1 ? "" : "s") + " each", fits > 0
                        ? "good" : "bad", null, queries.get(Measure.CARD_MEMORY_ALLOCATED)),
                new Tiles.Tile("Pods that fit after right-sizing", Long.toString(fitsAfter),
                        (fitsAfter >= fits ? "+" : "") + (fitsAfter - fits) + " with every recommendation applied ("
                                + windowLabel(request) + " of history): cuts give back " + Format.bytes(givenBack)
                                + ", raises take " + Format.bytes(taken), fitsAfter > fits ? "good" : "", null,
                        queries.get(Measure.CARD_MEMORY_ALLOCATED)))));
        page.note("info", "Per card model, as HAMi's scheduler would place them one after another: each card takes "
                + "as many as its free memory, free compute and free share slots allow; a pod of several cards "
                + "needs distinct cards of one node. Unhealthy cards, MIG cards and cards lacking a figure are not "
                + "counted. After right-sizing: each card's allocations as they would be with every recommendation "
                + "of the Right-sizing page applied — a cut gives back, a raise for a limit hit takes; a workload "
                + "without enough history keeps its request.");
        page.add(view(Columns.capacity(), models, request, queries, "", "No cards."));
        // Unmet demand next to what still fits: whether to buy cards or to right-size.
        page.note("info", "Pods waiting for a GPU, by why: insufficient_memory or insufficient_cores mean no card "
                + "has the free share (right-size the workloads holding idle memory, on the Right-sizing page, or "
                + "add cards); quota, the namespace's GPU quota; no_card_of_type and node_affinity, no card the pod "
                + "may use.");
        page.add(view(StuckPage.pending(), demand.pending(), request, page.queries(demand.provenance()), "",
                "No pods wait for a GPU."));
        return page.html();
    }
}
