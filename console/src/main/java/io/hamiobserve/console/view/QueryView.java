package io.hamiobserve.console.view;

/**
 * A query behind the page's figures.
 *
 * @param anchor     the fragment id figures link to
 * @param prometheus a link to Prometheus's graph page with the query, or null
 */
public record QueryView(String anchor, String name, String expression, String prometheus) {
}
