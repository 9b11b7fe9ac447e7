package io.hamiobserve.domain;

import java.util.Objects;

/**
 * One card as its vendor's device provider found it on a node: the registration, the HAMi backend
 * that owns it, and what its raw figures mean.
 *
 * @param card    the card as HAMi registers it; memory and cores in the vendor's raw units
 * @param backend HAMi's name for the device backend that owns the card (its CommonWord, e.g.
 *                {@code NVIDIA}, {@code Ascend910B3}, {@code Metax-SGPU}); the card's
 *                {@code type} may differ (a product name)
 * @param units   what the card's memory and core figures, and its shares', mean
 */
public record VendorCard(RegisteredCard card, String backend, DeviceUnits units) {
    public VendorCard {
        Objects.requireNonNull(card, "card");
        Objects.requireNonNull(backend, "backend");
        Objects.requireNonNull(units, "units");
    }
}
