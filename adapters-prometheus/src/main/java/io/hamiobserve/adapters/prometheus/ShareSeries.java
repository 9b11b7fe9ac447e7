package io.hamiobserve.adapters.prometheus;

/**
 * Each container's share of a card, in PromQL, from what the scheduler role writes.
 *
 * <p>The role writes the per-container detail ({@code hami_observe_vgpu_container_*}) only for pods
 * whose containers HAMi's own pod series cannot tell apart (several containers holding cards, an
 * init container, a container not first). For every other pod HAMi's series
 * ({@code hami_vgpu_memory_allocated_bytes}, {@code hami_vgpu_core_allocated_ratio}, under
 * {@code container_index="0"}) are that one container's share, and {@code hami_observe_container_info}
 * names the container. A share is therefore the detail where a pod has it, else HAMi's series: the
 * one expression every query of a share reads, written here once.
 *
 * <p>A history written before the detail was narrowed holds the detail for every pod, and reads the
 * same: where the detail is there it wins.
 */
final class ShareSeries {
    private ShareSeries() {
    }

    private static final String INFO = "hami_observe_container_info";

    /** A figure of a share: HAMi's pod series and the detail series that holds it per container. */
    enum Figure {
        MEMORY("hami_vgpu_memory_allocated_bytes", "hami_observe_vgpu_container_memory_allocated_bytes"),
        CORES("hami_vgpu_core_allocated_ratio", "hami_observe_vgpu_container_core_allocated_ratio");

        private final String pod;
        private final String detail;

        Figure(String pod, String detail) {
            this.pod = pod;
            this.detail = detail;
        }
    }

    /**
     * Every share's series with its {@code namespace}, {@code pod}, {@code container_index},
     * {@code node} and {@code device_uuid} (and {@code container} where the detail holds it): for
     * callers that group by the container's position and name it apart.
     *
     * @param cluster  the label that tells clusters apart (or a placeholder for it)
     * @param where    matchers on both series (node, card, namespace, pod, position), without braces
     * @param podWhere matchers that pick the pods (never a position: a pod with the detail has it
     *                 for its other containers too), without braces
     * @param lookback a range such as {@code 5m} to read each series as last seen within it, or
     *                 {@code null} for the instant's value
     */
    static String byPosition(Figure figure, String cluster, String where, String podWhere, String lookback) {
        return "(" + from(Source.DETAIL, figure, cluster, where, podWhere, lookback) + " or "
                + from(Source.POD, figure, cluster, where, podWhere, lookback) + ")";
    }

    /**
     * Where a pod's shares are read from: the detail, which names each container, or HAMi's pod
     * series, one share a card (container index 0) for the pods without the detail.
     */
    enum Source {
        DETAIL, POD;

        /**
         * The labels that meet a share of this source with its container's use series (which carry
         * {@code namespace, pod, container, node, device_uuid}): the detail's own name; for HAMi's
         * pod series the pod and card alone. A pod without the detail has one container holding
         * cards, and only a container holding a card has HAMi-Core's series of it, so the use of
         * the card in the pod is that container's (a container the node role sees on it outside
         * HAMi-Core, given the card by hand, counts as the pod's, as the zombie rule counts it
         * covered by the pod's share). No name is looked up at each step: a position renamed within
         * the lookback has two, and the lookup keeps one of them, not always the use's.
         */
        String meeting(String cluster) {
            return prefix(cluster) + (this == DETAIL ? "namespace, pod, container, node, device_uuid"
                    : "namespace, pod, node, device_uuid");
        }

        /** The labels a share of this source is kept by: its position, and the detail's name. */
        String kept(String cluster) {
            return position(cluster) + (this == DETAIL ? ", container" : "");
        }
    }

    /** {@link #byPosition}'s part from {@code source}. */
    static String from(Source source, Figure figure, String cluster, String where, String podWhere, String lookback) {
        return source == Source.DETAIL ? read(figure.detail, where, lookback)
                : "(" + read(figure.pod, where, lookback) + " unless on (" + prefix(cluster) + "namespace, pod) "
                + read(figure.detail, podWhere, lookback) + ")";
    }

    /**
     * Every share's figure with its container's name ({@code container}) as well: the figure by
     * position, named ({@link #named(String, String, String)}). For fleet-wide reads that meet the
     * node role's series, which name containers.
     */
    static String named(Figure figure, String cluster, String lookback) {
        return named(byPosition(figure, cluster, "", "", lookback), cluster, lookback);
    }

    /**
     * {@code byPosition}, an expression with the labels of a share's position ({@code namespace},
     * {@code pod}, {@code container_index}, {@code cluster}), joined with the name of the container
     * there: from its info series, or from the detail itself (which names it even where no info
     * series does). Joined once, on a figure computed by position: a share's size, from its memory
     * and its cores, pays for one join, not two (each an operation over every share).
     *
     * <p>One name a position, whatever the engine holds: {@code group} values each name 1 (never
     * the detail's bytes), and {@code topk by (position) (1, ...)} keeps one where two are seen in
     * the lookback (a StatefulSet's pod recreated under its name with a container renamed, series
     * written by hand): two would make the join fail ("duplicate series") for every share of the
     * fleet, a page or a rule's whole run. Which of the two it keeps is the engine's choice (topk
     * among equal values): the integrals by position are therefore named once, at their end
     * ({@link #namedAtSteps}), and a use meets its share without the name where it can
     * ({@link Source#meeting}). A detail without a name names nothing.
     */
    static String named(String byPosition, String cluster, String lookback) {
        return namedAtSteps(byPosition, cluster, lookback, null);
    }

    /**
     * {@link #named(String, String, String)} for an integral by position over a subquery's steps
     * ({@code steps}, the subquery's {@code range:step}; {@code null} for an instant): the names
     * are those read at any of the same steps, each with {@code lookback}, so every position the
     * integral read has one, and the steps' cost of reading them is paid without a join at each.
     */
    static String namedAtSteps(String byPosition, String cluster, String lookback, String steps) {
        String position = prefix(cluster) + "namespace, pod, container_index";
        return "(" + byPosition + " * on (" + position + ") group_left (container) topk by (" + position
                + ") (1, group by (" + position + ", container) (" + atSteps(read(INFO, "", lookback), steps)
                + " or " + atSteps(read(Figure.MEMORY.detail, "container!=\"\"", lookback), steps) + ")))";
    }

    private static String atSteps(String read, String steps) {
        return steps == null ? read : "last_over_time(" + read + "[" + steps + "])";
    }

    /** The labels of a share's position on its card, the cluster's first where there is one. */
    static String position(String cluster) {
        return prefix(cluster) + "namespace, pod, container_index, node, device_uuid";
    }

    private static String read(String metric, String matchers, String lookback) {
        String selector = matchers.isEmpty() ? metric : metric + "{" + matchers + "}";
        return lookback == null ? selector : "last_over_time(" + selector + "[" + lookback + "])";
    }

    private static String prefix(String cluster) {
        return cluster.isEmpty() ? "" : cluster + ", ";
    }
}
