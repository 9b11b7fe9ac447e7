package io.hamiobserve.console.view;

import java.util.List;

/** A row of headline figures. */
public record Tiles(List<Tile> tiles) implements Section {
    /**
     * @param tone    "", "good", "warn" or "bad"
     * @param missing the reason the figure is missing, or null
     * @param query   the anchor of the query behind it, or null
     */
    public record Tile(String label, String value, String detail, String tone, String missing, String query) {
    }
}
