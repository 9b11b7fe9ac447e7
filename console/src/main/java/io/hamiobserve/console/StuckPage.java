package io.hamiobserve.console;

import io.hamiobserve.console.Format.Kind;
import io.hamiobserve.console.PageKit.Builder;
import io.hamiobserve.console.PageKit.Request;
import io.hamiobserve.console.PageKit.Result;
import io.hamiobserve.console.view.Tiles;
import io.hamiobserve.domain.fleet.Absence;
import io.hamiobserve.domain.fleet.Figure;
import io.hamiobserve.domain.fleet.FleetScope;
import io.hamiobserve.domain.fleet.FleetState;
import io.hamiobserve.domain.fleet.Measure;
import io.hamiobserve.domain.fleet.Stuck;
import io.hamiobserve.ports.SourceUnavailableException;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;

/**
 * The Stuck page (what holds cards for nothing: ghost allocations, zombie processes, idle shares)
 * and unmet demand, whose table the Capacity page shows next to what still fits. One read of the fleet's
 * stuck list ({@link Stuck}: a fixed set of queries whatever the fleet's size).
 */
final class StuckPage extends FleetPage {
    static final ConsolePage PAGE = ConsolePage.listed("/stuck", "Stuck", StuckPage::new);

    StuckPage(PageContext context) {
        super(context);
    }

    @Override
    public Result build(Request request) throws SourceUnavailableException {
        FleetState state = fleet.state(request.at(), FleetScope.CARDS_ONLY);
        Stuck stuck = fleet.stuck(request.at(), settings.idleAfter());
        Builder page = page("Stuck", request, state);
        Map<Measure, String> queries = page.queries(stuck.provenance());
        Instant at = stuck.at();
        Table<Stuck.GhostShare> ghostTable = ghosts(at);
        Table<Stuck.Zombie> zombieTable = zombies(at);
        Table<Stuck.Idle> idleTable = idle();
        Table<Stuck.PendingGroup> pendingTable = pending();
        var export = export(request, Map.of("ghosts", rows(ghostTable, stuck.ghosts()),
                "zombies", rows(zombieTable, stuck.zombies()),
                "idle", rows(idleTable, stuck.idle()),
                "pending", rows(pendingTable, stuck.pending())));
        if (export.isPresent()) {
            return export.get();
        }
        double ghostHours = stuck.ghosts().stream().mapToDouble(g -> g.cardHours(at).orElse(0)).sum();
        double zombieHours = stuck.zombies().stream().mapToDouble(z -> z.cardHours(at).orElse(0)).sum();
        long waiting = stuck.pending().stream().mapToLong(Stuck.PendingGroup::pods).sum();
        page.add(new Tiles(List.of(
                new Tiles.Tile("Ghost allocations", Long.toString(stuck.ghosts().size()),
                        Format.number(ghostHours, 1) + " card-hours held", stuck.ghosts().isEmpty() ? "good" : "bad",
                        null, queries.get(Measure.GHOST_SINCE)),
                new Tiles.Tile("Zombie processes", Long.toString(stuck.zombies().size()),
                        Format.number(zombieHours, 1) + " card-hours held", stuck.zombies().isEmpty() ? "good" : "bad",
                        null, queries.get(Measure.ZOMBIE_MEMORY)),
                new Tiles.Tile("Idle shares", Long.toString(stuck.idle().size()),
                        "no kernel for " + Format.duration(stuck.idleAfter()) + " or more",
                        stuck.idle().isEmpty() ? "good" : "warn", null, queries.get(Measure.IDLE_LAST_KERNEL)),
                new Tiles.Tile("Pods waiting for a GPU", Long.toString(waiting), "see Capacity for what still fits",
                        waiting == 0 ? "good" : "warn", null, queries.get(Measure.PENDING_PODS)))));
        page.note("info", "A ghost is a share HAMi still counts for a pod with no live owner: deleting (past its "
                + "deletionTimestamp: a finalizer, a lost node) or never_started (placed, no container has run). "
                + "A zombie is memory on a card outside HAMi-Core that no share of that card covers. Card-hours: "
                + "the share's size in cards (the larger of its memory and core fractions) times its age.");
        page.add(view(ghostTable, stuck.ghosts(), request, queries, "", "No ghost allocations."));
        page.add(view(zombieTable, stuck.zombies(), request, queries, "", "No zombie processes."));
        page.add(view(idleTable, stuck.idle(), request, queries, "", "No idle shares."));
        page.add(view(pendingTable, stuck.pending(), request, queries, "", "No pods wait for a GPU."));
        return page.html();
    }

    Table<Stuck.GhostShare> ghosts(Instant at) {
        return new Table<>("ghosts", "Ghost allocations", List.of(
                Table.<Stuck.GhostShare>column("workload", "Pod", g -> Value.text(g.namespace() + "/" + g.pod())),
                Table.<Stuck.GhostShare>column("node", "Node", g -> Value.text(g.node()))
                        .linked(g -> links.node(g.node())),
                Table.<Stuck.GhostShare>column("uuid", "Card", g -> Value.text(g.uuid()))
                        .linked(g -> links.card(g.uuid())),
                Table.<Stuck.GhostShare>column("reason", "Reason", g -> Value.text(g.reason()))
                        .from(Measure.GHOST_SINCE),
                Table.<Stuck.GhostShare>column("age", "Age", g -> Value.of(g.ageSeconds(at), Kind.SECONDS))
                        .from(Measure.GHOST_SINCE),
                Table.<Stuck.GhostShare>column("cards", "Cards", g -> Value.of(figure(g.cards()), Kind.DECIMAL))
                        .from(Measure.GHOST_CARDS),
                Table.<Stuck.GhostShare>column("card_hours", "Card-hours held",
                        g -> Value.of(figure(g.cardHours(at)), Kind.DECIMAL))),
                "card_hours", true);
    }

    Table<Stuck.Zombie> zombies(Instant at) {
        return new Table<>("zombies", "Zombie processes", List.of(
                Table.<Stuck.Zombie>column("node", "Node", z -> Value.text(z.node())).linked(z -> links.node(z.node())),
                Table.<Stuck.Zombie>column("uuid", "Card", z -> Value.text(z.uuid())).linked(z -> links.card(z.uuid())),
                Table.<Stuck.Zombie>column("owner", "Process of", z -> Value.text(z.pod().isEmpty()
                        ? "no known pod" : z.namespace() + "/" + z.pod() + " (" + z.container() + ")")),
                Table.<Stuck.Zombie>column("memory", "Memory", z -> Value.of(z.memoryBytes(), Kind.BYTES))
                        .from(Measure.ZOMBIE_MEMORY),
                Table.<Stuck.Zombie>column("age", "Age", z -> Value.of(figure(z.ageSeconds(at)), Kind.SECONDS))
                        .from(Measure.ZOMBIE_FIRST_SEEN),
                Table.<Stuck.Zombie>column("card_hours", "Card-hours held",
                        z -> Value.of(figure(z.cardHours(at)), Kind.DECIMAL)).from(Measure.ZOMBIE_CARD_MEMORY)),
                "card_hours", true);
    }

    Table<Stuck.Idle> idle() {
        return new Table<>("idle", "Idle shares", List.of(
                Table.<Stuck.Idle>column("workload", "Container", i -> Value.text(i.namespace() + "/" + i.pod() + " ("
                        + i.container() + ")")).linked(i -> links.workload(i.namespace(), i.pod(), i.container())),
                Table.<Stuck.Idle>column("node", "Node", i -> Value.text(i.node())).linked(i -> links.node(i.node())),
                Table.<Stuck.Idle>column("uuid", "Card", i -> Value.text(i.uuid())).linked(i -> links.card(i.uuid())),
                Table.<Stuck.Idle>column("last_kernel", "Last kernel",
                        i -> Value.of(i.lastKernelAgeSeconds(), Kind.SECONDS)).from(Measure.IDLE_LAST_KERNEL)),
                "last_kernel", true);
    }

    static Table<Stuck.PendingGroup> pending() {
        return new Table<>("pending", "Pods waiting for a GPU", List.of(
                Table.<Stuck.PendingGroup>column("namespace", "Namespace", p -> Value.text(p.namespace())),
                Table.<Stuck.PendingGroup>column("reason", "Reason", p -> Value.text(p.reason()))
                        .from(Measure.PENDING_PODS),
                Table.<Stuck.PendingGroup>column("pods", "Pods", p -> Value.of(p.pods(), Kind.COUNT))
                        .from(Measure.PENDING_PODS),
                Table.<Stuck.PendingGroup>column("oldest_wait", "Oldest wait",
                        p -> Value.of(p.oldestWaitSeconds(), Kind.SECONDS)).from(Measure.PENDING_OLDEST_WAIT)),
                "pods", true);
    }

    private static Figure figure(OptionalDouble value) {
        return value.isPresent() ? Figure.of(value.getAsDouble()) : Figure.missing(Absence.NOT_REPORTED);
    }
}
