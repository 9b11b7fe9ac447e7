package io.hamiobserve.app.cli;

import io.hamiobserve.exposition.FamilySelection;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Which families an endpoint writes, as kube-state-metrics spells it: {@code --metric-opt-in-list}
 * turns on families that are off by default, {@code --metric-allowlist} or {@code --metric-denylist}
 * (not both) keep or drop families by name. Each takes comma-separated regular expressions, each
 * matching a whole family name (a counter without {@code _total}), and may be repeated.
 */
public final class MetricSelectionFlags {
    @Spec(Spec.Target.MIXEE)
    private CommandSpec command;

    @Option(names = "--metric-opt-in-list", paramLabel = "REGEX,...", split = ",",
            description = "families that are off by default to write too (regular expressions over family names, "
                    + "each matching a whole name)")
    private List<String> optIn = new ArrayList<>();

    @Option(names = "--metric-allowlist", paramLabel = "REGEX,...", split = ",",
            description = "write only the families matching one of these (not with --metric-denylist)")
    private List<String> allowlist = new ArrayList<>();

    @Option(names = "--metric-denylist", paramLabel = "REGEX,...", split = ",",
            description = "do not write the families matching one of these (not with --metric-allowlist)")
    private List<String> denylist = new ArrayList<>();

    /**
     * The selection over a catalogue whose opt-in families are {@code optInFamilies}; refused with
     * one line (exit 2) when both lists are given or an expression does not compile.
     */
    public FamilySelection selection(Set<String> optInFamilies) {
        try {
            return FamilySelection.of(optInFamilies, optIn, allowlist, denylist);
        } catch (IllegalArgumentException refused) {
            throw new ParameterException(command.commandLine(), refused.getMessage());
        }
    }
}
