package io.hamiobserve.console.view;

/**
 * Text to copy (a resources block, a patch), with a copy button.
 *
 * @param id the element's id on the page, which the copy button names (one per snippet on a page)
 */
public record Snippet(String title, String text, String id) implements Section {
    public Snippet(String title, String text) {
        this(title, text, "snippet");
    }
}
