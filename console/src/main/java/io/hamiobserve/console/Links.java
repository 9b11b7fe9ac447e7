package io.hamiobserve.console;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Every URL the console writes: under its route prefix, parameters encoded, so a page's state
 * (filters, sort, range) is in its address and can be bookmarked or shared.
 */
final class Links {
    /** The parameter that selects a cluster: every link of a page of one cluster carries it. */
    static final String CLUSTER = "cluster";

    private final String prefix;
    private final Optional<String> cluster;

    /** @param prefix the route prefix, "" or like "/gpu" (no trailing slash) */
    Links(String prefix) {
        this(prefix, Optional.empty());
    }

    private Links(String prefix, Optional<String> cluster) {
        this.prefix = prefix;
        this.cluster = cluster;
    }

    /** The links of the pages of one cluster: each carries {@code cluster=name} unless it names its own. */
    Links inCluster(String name) {
        return new Links(prefix, Optional.of(name));
    }

    /** The cluster these links carry, if any. */
    Optional<String> cluster() {
        return cluster;
    }

    String prefix() {
        return prefix;
    }

    /**
     * A console path ("/cards") with parameters; null or empty values are left out. The selected
     * cluster is added unless the parameters name one (empty: all clusters).
     */
    String to(String path, Map<String, String> parameters) {
        if (cluster.isPresent() && !parameters.containsKey(CLUSTER)) {
            Map<String, String> carried = new LinkedHashMap<>(parameters);
            carried.put(CLUSTER, cluster.get());
            parameters = carried;
        }
        StringBuilder url = new StringBuilder(prefix).append(path);
        char separator = '?';
        for (Map.Entry<String, String> parameter : parameters.entrySet()) {
            if (parameter.getValue() == null || parameter.getValue().isEmpty()) {
                continue;
            }
            url.append(separator).append(encode(parameter.getKey())).append('=').append(encode(parameter.getValue()));
            separator = '&';
        }
        return url.toString();
    }

    /** A page with parameters; null or empty values are left out. */
    String to(ConsolePage page, Map<String, String> parameters) {
        return to(page.path(), parameters);
    }

    /** A page without parameters. */
    String to(ConsolePage page) {
        return to(page.path(), Map.of());
    }

    String node(String name) {
        return to(NodePage.PAGE, Map.of("name", name));
    }

    String card(String uuid) {
        return to(CardPage.PAGE, Map.of("uuid", uuid));
    }

    String workload(String namespace, String pod, String container) {
        Map<String, String> parameters = new LinkedHashMap<>();
        parameters.put("namespace", namespace);
        parameters.put("pod", pod);
        parameters.put("container", container);
        return to(WorkloadPage.PAGE, parameters);
    }

    /**
     * {@code href}, a link of this console's, opened in {@code cluster}: a row of a page over all
     * clusters links to its own cluster's node, card or workload. A link that names a cluster
     * already, or one elsewhere, is kept.
     */
    String inCluster(String href, String cluster) {
        if (href == null || !href.startsWith(prefix + "/") || href.startsWith(asset(""))
                || href.matches(".*[?&]" + CLUSTER + "=.*")) {
            return href;
        }
        return href + (href.indexOf('?') < 0 ? '?' : '&') + CLUSTER + '=' + encode(cluster);
    }

    String asset(String name) {
        return prefix + "/assets/" + name;
    }

    static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
