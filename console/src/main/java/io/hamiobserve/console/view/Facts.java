package io.hamiobserve.console.view;

import java.util.List;

/** A list of labelled facts. */
public record Facts(String title, List<Fact> facts) implements Section {
    /** @param href null when not a link; @param css "missing" for a missing figure */
    public record Fact(String label, String value, String href, String title, String css) {
    }
}
