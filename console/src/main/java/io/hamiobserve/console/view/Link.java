package io.hamiobserve.console.view;

/** A link; {@code current} marks the page or choice the user is on. */
public record Link(String text, String href, boolean current) {
}
