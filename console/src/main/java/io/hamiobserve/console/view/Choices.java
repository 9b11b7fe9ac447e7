package io.hamiobserve.console.view;

import java.util.List;

/** A row of links choosing one value (a time range, a window). */
public record Choices(String label, List<Link> options) implements Section {
}
