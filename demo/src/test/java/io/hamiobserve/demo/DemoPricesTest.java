package io.hamiobserve.demo;

import io.hamiobserve.domain.fleet.Prices;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The demo's bundled prices reach the cards they are meant for, as the Showback page matches them
 * against each card's registered model ({@code device_type}): the A100s and the H100s priced, the
 * V100 and the Ascend chips hours only.
 */
class DemoPricesTest {
    @Test
    void theBundledPricesNameTheDemosA100sAndH100sAndNothingElse() {
        Prices prices = DemoPrices.bundled();
        Map<String, Optional<Double>> byModel = new TreeMap<>();
        DemoCluster.standard().cards().forEach(card -> byModel.put(card.registration().type(),
                prices.of(card.registration().type())));

        Map<String, Optional<Double>> expected = new TreeMap<>();
        byModel.keySet().forEach(model -> expected.put(model, model.contains("A100") ? Optional.of(2.10)
                : model.contains("H100") ? Optional.of(4.90) : Optional.empty()));
        assertEquals(expected, byModel);
        assertEquals(4, byModel.size(), "A100, H100, V100 and Ascend models: " + byModel.keySet());
    }
}
