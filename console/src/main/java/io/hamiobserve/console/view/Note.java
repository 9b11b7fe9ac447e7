package io.hamiobserve.console.view;

/** A paragraph: "info", "warn" or "error". */
public record Note(String tone, String text) implements Section {
}
