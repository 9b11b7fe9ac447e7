package io.hamiobserve.ports.spi;

import io.hamiobserve.domain.DeviceUnits;
import io.hamiobserve.domain.RegisteredCard;

import java.util.Objects;

/**
 * One card a provider found on a node, with what its raw figures mean.
 *
 * @param card    the card as HAMi registers it; memory and cores in the vendor's raw units
 * @param backend HAMi's name for the device backend that owns the card (its CommonWord, e.g.
 *                {@code NVIDIA}, {@code Ascend910B3}, {@code Metax-SGPU}); the card's
 *                {@code type} may differ (a product name)
 * @param units   what the card's memory and core figures, and its shares', mean
 */
public record ProvidedCard(RegisteredCard card, String backend, DeviceUnits units) {
    public ProvidedCard {
        Objects.requireNonNull(card, "card");
        Objects.requireNonNull(backend, "backend");
        Objects.requireNonNull(units, "units");
    }
}
