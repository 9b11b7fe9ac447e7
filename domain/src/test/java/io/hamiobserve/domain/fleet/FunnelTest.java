package io.hamiobserve.domain.fleet;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

class FunnelTest {
    private static final Instant TO = Instant.parse("2026-11-30T00:00:00Z");
    private static final double DAY = Duration.ofDays(1).toSeconds();

    /**
     * Four cards for a day, one unhealthy half of it: 3.5 cards' worth. Shares: half a card active
     * and effective, half a card active at 20 %, a whole card idle (not active).
     */
    private static CardHours day() {
        return new CardHours(TO.minus(Duration.ofDays(1)), TO, List.of(
                new CardAccrual("east", "a", "GPU-1", "A100", DAY, 0),
                new CardAccrual("east", "a", "GPU-2", "A100", DAY, DAY / 2),
                new CardAccrual("east", "b", "GPU-3", "L4", DAY, 0),
                new CardAccrual("east", "b", "GPU-4", "L4", DAY, 0)),
                List.of(share("ml", "Deployment/llm", "GPU-1", 0.5, 0.4, true),
                        share("ml", "Job/train", "GPU-1", 0.5, 0.1, true),
                        share("web", "Deployment/api", "GPU-3", 1.0, 0.0, false)), Map.of());
    }

    private static ShareAccrual share(String namespace, String workload, String card, double size, double use,
                                      boolean active) {
        String[] owner = workload.split("/");
        return new ShareAccrual("east", namespace, owner[0], owner[1], owner[1] + "-0", "main", "a", card,
                size * DAY, use * DAY, 0, 0, active);
    }

    @Test
    void eachStageInCardsWorthForTheFleetAndPerModelAndNamespace() {
        Map<String, Funnel> byModel = Funnel.byGroup(Funnel.of(day(), Showback.Grouping.MODEL));
        assertEquals(new Funnel("fleet", 3.5, 2.0, 1.0, 0.5), byModel.get("fleet"));
        assertEquals(new Funnel("A100", 1.5, 1.0, 1.0, 0.5), byModel.get("A100"));
        assertEquals(new Funnel("L4", 2.0, 1.0, 0.0, 0.0), byModel.get("L4"));
        Map<String, Funnel> byNamespace = Funnel.byGroup(Funnel.of(day(), Showback.Grouping.NAMESPACE));
        assertEquals(new Funnel("ml", 1.0, 1.0, 1.0, 0.5), byNamespace.get("ml"));
        assertEquals(3.5, Funnel.byGroup(Funnel.of(day(), Showback.Grouping.CLUSTER)).get("east").total());
    }

    @Test
    void theWorkloadsThatLoseTheMostAtEachStage() {
        assertEquals(List.of(new Funnel.Loss("allocated → active", "web", "Deployment/api", 1.0),
                        new Funnel.Loss("active → effective", "ml", "Job/train", 0.5)),
                Funnel.losses(day(), 5));
    }
}
