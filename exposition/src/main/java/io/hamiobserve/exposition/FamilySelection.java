package io.hamiobserve.exposition;

import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Which families an exposition writes, as kube-state-metrics chooses them: a family a catalogue
 * declares opt-in is written only when the opt-in list names it; then an allowlist (only the
 * families it names) or a denylist (all but those it names) applies to every family, opt-in or
 * not. Each list is a set of regular expressions over family names, each matching a whole name
 * (a counter by its name without {@code _total}). A family left out is left out whole: its
 * HELP/TYPE lines too.
 *
 * <p>Detail that only some users want costs every user bytes at every scrape (a per-pod series at
 * 100,000 pods is 12 MB of text); opt-in keeps the default exposition to what the console, the
 * dashboard and the alert rules read.
 */
public final class FamilySelection {
    /** Every family, opt-in ones included: what a test or a one-off dump wants. */
    public static final FamilySelection ALL = new FamilySelection(Set.of(), List.of(Pattern.compile(".*")),
            List.of(), List.of());

    private final Set<String> optInFamilies;
    private final List<Pattern> optedIn;
    private final List<Pattern> allowed;
    private final List<Pattern> denied;

    private FamilySelection(Set<String> optInFamilies, List<Pattern> optedIn, List<Pattern> allowed,
                            List<Pattern> denied) {
        this.optInFamilies = Set.copyOf(optInFamilies);
        this.optedIn = List.copyOf(optedIn);
        this.allowed = List.copyOf(allowed);
        this.denied = List.copyOf(denied);
    }

    /**
     * @param optInFamilies the names the catalogue declares opt-in (off unless {@code optIn} names them)
     * @param optIn         expressions naming the opt-in families to write
     * @param allowlist     when not empty, only families matching one of these are written
     * @param denylist      families matching one of these are not written; not with an allowlist
     * @throws IllegalArgumentException when both lists are given, or an expression does not compile
     *                                  (the message names the list and the expression)
     */
    public static FamilySelection of(Set<String> optInFamilies, List<String> optIn, List<String> allowlist,
                                     List<String> denylist) {
        if (!allowlist.isEmpty() && !denylist.isEmpty()) {
            throw new IllegalArgumentException("an allowlist and a denylist exclude each other: give one");
        }
        return new FamilySelection(optInFamilies, compile("opt-in list", optIn), compile("allowlist", allowlist),
                compile("denylist", denylist));
    }

    /** The default of a catalogue: everything but its opt-in families. */
    public static FamilySelection defaults(Set<String> optInFamilies) {
        return of(optInFamilies, List.of(), List.of(), List.of());
    }

    private static List<Pattern> compile(String list, List<String> expressions) {
        return expressions.stream().map(Objects::requireNonNull).map(expression -> {
            try {
                return Pattern.compile(expression);
            } catch (PatternSyntaxException invalid) {
                throw new IllegalArgumentException("the " + list + " has an expression that is not a regular "
                        + "expression: " + expression + " (" + invalid.getDescription() + ")");
            }
        }).toList();
    }

    /** Whether the family of this name is written. */
    public boolean writes(String family) {
        if (optInFamilies.contains(family) && !matches(optedIn, family)) {
            return false;
        }
        if (!allowed.isEmpty() && !matches(allowed, family)) {
            return false;
        }
        return !matches(denied, family);
    }

    private static boolean matches(List<Pattern> patterns, String family) {
        for (Pattern pattern : patterns) {
            if (pattern.matcher(family).matches()) {
                return true;
            }
        }
        return false;
    }
}
