package io.hamiobserve.console.view;

import java.util.List;

/**
 * One page.
 *
 * @param nav      the navigation entries (the current one marked)
 * @param crumbs   the way back up: overview › node › card › workload
 * @param banner   a notice over every page (the demo's source), or null
 * @param queries  the queries behind the page's figures, listed at its foot
 * @param source   where the figures come from, in words
 * @param at        the instant they describe, ISO-8601
 * @param assets    the URL prefix of the static files
 * @param refreshed how often the figures are read again ("refreshed every 60 s"), or empty
 */
public record Page(String title, List<Link> nav, List<Link> crumbs, String banner, List<Section> sections,
                   List<QueryView> queries, String source, String at, String assets, String refreshed) {
}
