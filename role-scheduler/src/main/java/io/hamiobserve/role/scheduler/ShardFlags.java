package io.hamiobserve.role.scheduler;

import io.hamiobserve.domain.Shard;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The scheduler's sharding flags, as kube-state-metrics spells them: {@code --shard I
 * --total-shards N}, or, in a StatefulSet, {@code --total-shards N} alone and the shard taken from
 * the pod's ordinal ({@code --pod-name}, else {@code $POD_NAME}, ending in {@code -<ordinal>}).
 *
 * <p>The total is a flag, not read from the StatefulSet: the flag sits in the pod template, so
 * changing it rolls every shard and no two shards ever disagree on the total, and the scheduler
 * needs no permission to read StatefulSets.
 */
public final class ShardFlags {
    private static final Pattern ORDINAL = Pattern.compile(".*-(0|[1-9][0-9]{0,8})");

    @Spec(Spec.Target.MIXEE)
    private CommandSpec command;

    @Option(names = "--shard", paramLabel = "I",
            description = "this process's shard, 0 <= I < N (default: the pod's ordinal when --total-shards is above 1)")
    private Integer shard;

    @Option(names = "--total-shards", paramLabel = "N", defaultValue = "1",
            description = "how many shards serve the allocation view; each serves the nodes whose name hashes to it "
                    + "(default: ${DEFAULT-VALUE}, the whole view)")
    private int totalShards;

    @Option(names = "--pod-name", paramLabel = "NAME",
            description = "this pod's name, whose -<ordinal> suffix is the shard when --shard is not given "
                    + "(default: $POD_NAME)")
    private String podName;

    /** The shard to serve; refused with one line (exit 2) when the flags make none. */
    public Shard shard(Map<String, String> env) {
        if (totalShards < 1) {
            throw refused("--total-shards must be at least 1, not " + totalShards);
        }
        int index;
        if (shard != null) {
            index = shard;
        } else if (totalShards == 1) {
            index = 0;
        } else {
            String pod = podName != null ? podName : env.getOrDefault("POD_NAME", "");
            Matcher ordinal = ORDINAL.matcher(pod);
            if (!ordinal.matches()) {
                throw refused("--total-shards " + totalShards + " needs --shard, or a StatefulSet pod name ending in "
                        + "-<ordinal> (--pod-name or POD_NAME)" + (pod.isEmpty() ? "" : ", not '" + pod + "'"));
            }
            index = Integer.parseInt(ordinal.group(1));
        }
        if (index < 0 || index >= totalShards) {
            throw refused((shard != null ? "--shard " : "the pod's ordinal ") + index
                    + " is not a shard of --total-shards " + totalShards + " (0 to " + (totalShards - 1) + ")");
        }
        return new Shard(index, totalShards);
    }

    private ParameterException refused(String why) {
        return new ParameterException(command.commandLine(), why);
    }
}
