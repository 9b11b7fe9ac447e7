package io.hamiobserve.demo;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The names {@code --demo.clusters} gives the demo's simulated clusters: each becomes the value of the
 * {@code cluster} label on its series (a scrape target label, as a cluster's own Prometheus adds it as
 * an external label), and a choice in the console's cluster selector.
 */
public final class DemoClusters {
    /**
     * The most clusters the demo simulates: each is seven more endpoints and another week of history
     * written at start, and a selector of a handful already shows what several clusters look like.
     */
    public static final int MOST = 4;
    /**
     * A name as Kubernetes names its objects (an RFC 1123 label): what a cluster is called in a
     * kubeconfig or an external label in practice, safe in a URL, a PromQL string and a page.
     */
    private static final Pattern NAME = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");

    private DemoClusters() {
    }

    /**
     * The clusters to simulate: those {@code given}, in order; one without a name (no label, the
     * demo as it always was) when none is given.
     *
     * @throws IllegalArgumentException naming the first name refused and why
     */
    public static List<String> names(List<String> given) {
        if (given.isEmpty()) {
            return List.of("");
        }
        if (given.size() > MOST) {
            throw new IllegalArgumentException("at most " + MOST + " clusters, not " + given.size());
        }
        Set<String> names = new LinkedHashSet<>();
        for (String name : given) {
            if (!NAME.matcher(name).matches()) {
                throw new IllegalArgumentException("cluster name " + printable(name) + " is not a lower-case "
                        + "name of letters, digits and '-' (at most 63, starting and ending with a letter or digit)");
            }
            if (!names.add(name)) {
                throw new IllegalArgumentException("cluster name " + printable(name) + " is given twice");
            }
        }
        return new ArrayList<>(names);
    }

    /** How much of a refused name its message shows. */
    private static final int SHOWN = 70;

    /** {@code name} quoted (its start when long), all but printable ASCII as {@code \\uXXXX} escapes. */
    private static String printable(String name) {
        StringBuilder out = new StringBuilder("'");
        for (char c : name.substring(0, Math.min(name.length(), SHOWN)).toCharArray()) {
            if (c >= 0x20 && c < 0x7f) {
                out.append(c);
            } else {
                out.append(String.format("\\u%04x", (int) c));
            }
        }
        return out.append(name.length() > SHOWN ? "...'" : "'").toString();
    }
}
