package io.hamiobserve.demo;

import io.hamiobserve.domain.fleet.Prices;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** The card prices the demo ships with (prices.properties beside this class), for its Showback page. */
final class DemoPrices {
    private static final String FILE = "prices.properties";

    private DemoPrices() {
    }

    /** Parsed as an operator's {@code --prices} file is, so the bundled file obeys the same rules. */
    static Prices bundled() {
        try (InputStream in = DemoPrices.class.getResourceAsStream(FILE)) {
            if (in == null) {
                throw new IllegalStateException("the demo's " + FILE + " is missing from its jar");
            }
            return Prices.parse(new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList(), FILE);
        } catch (IOException unreadable) {
            throw new UncheckedIOException(unreadable);
        }
    }
}
