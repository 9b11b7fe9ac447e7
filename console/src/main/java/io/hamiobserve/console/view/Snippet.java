package io.hamiobserve.console.view;

/** Text to copy (a resources block), with a copy button. */
public record Snippet(String title, String text) implements Section {
}
