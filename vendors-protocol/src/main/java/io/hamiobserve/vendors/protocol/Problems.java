package io.hamiobserve.vendors.protocol;

import io.hamiobserve.ports.spi.Problem;

import java.util.ArrayList;
import java.util.List;

/**
 * The problems found in one annotation, label or resource value, collected as a decoder goes.
 * A decoder that must leave a whole part out if any of its fields is bad notes {@link #size()}
 * before the part and compares after it.
 */
public final class Problems {
    private final String key;
    private final List<Problem> problems;

    /** @param key the annotation, label or resource whose value is decoded */
    public Problems(String key) {
        this(key, new ArrayList<>(0));
    }

    private Problems(String key, List<Problem> problems) {
        this.key = key;
        this.problems = problems;
    }

    /** A collector for another key's problems that adds to this one's list (a decoder reading two values). */
    public Problems about(String otherKey) {
        return new Problems(otherKey, problems);
    }

    public String key() {
        return key;
    }

    /** Records a part left out: a stable, label-safe {@code reason} and what was wrong. */
    public void add(String reason, String detail) {
        problems.add(new Problem(key, reason, detail));
    }

    public int size() {
        return problems.size();
    }

    public boolean isEmpty() {
        return problems.isEmpty();
    }

    /** What was recorded, in order. */
    public List<Problem> list() {
        return List.copyOf(problems);
    }
}
