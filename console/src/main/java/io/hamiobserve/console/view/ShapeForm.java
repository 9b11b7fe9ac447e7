package io.hamiobserve.console.view;

/** The capacity page's form: the pod shape to fit. */
public record ShapeForm(String action, String memory, String cores, String cards, String error, String cluster)
        implements Section {
}
