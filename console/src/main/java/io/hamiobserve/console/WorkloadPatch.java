package io.hamiobserve.console;

import io.hamiobserve.domain.fleet.CardResources;
import io.hamiobserve.domain.fleet.WorkloadGroup;
import io.hamiobserve.domain.fleet.WorkloadRecommendation;
import org.snakeyaml.engine.v2.api.Dump;
import org.snakeyaml.engine.v2.api.DumpSettings;
import org.snakeyaml.engine.v2.common.FlowStyle;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * A strategic-merge patch of one controller's container resources ({@code nvidia.com/gpumem},
 * {@code nvidia.com/gpucores} in {@code limits}, where HAMi reads them), and the {@code kubectl
 * patch} line that applies it; or why there is none. Strategic merge matches containers by name,
 * so only the named containers change, and only the two resources in them.
 *
 * @param controller the controller (its group with an empty container)
 * @param yaml       the patch, when there is one
 * @param why        why there is none
 */
record WorkloadPatch(WorkloadGroup controller, Optional<String> yaml, Optional<String> why) {
    /** Where each kind keeps its pod template's containers. */
    private static final Map<String, List<String>> CONTAINERS = Map.of(
            "Deployment", List.of("spec", "template", "spec"),
            "StatefulSet", List.of("spec", "template", "spec"),
            "DaemonSet", List.of("spec", "template", "spec"),
            "ReplicaSet", List.of("spec", "template", "spec"),
            "Job", List.of("spec", "template", "spec"),
            "CronJob", List.of("spec", "jobTemplate", "spec", "template", "spec"));

    /** One patch per controller of {@code recommendations}, in their order. */
    static List<WorkloadPatch> of(List<WorkloadRecommendation> recommendations) {
        Map<WorkloadGroup, List<WorkloadRecommendation>> byController = new LinkedHashMap<>();
        recommendations.forEach(r -> byController.computeIfAbsent(r.workload().controller(), key -> new ArrayList<>())
                .add(r));
        List<WorkloadPatch> patches = new ArrayList<>();
        byController.forEach((controller, containers) -> patches.add(of(controller, containers)));
        return patches;
    }

    static WorkloadPatch of(WorkloadGroup controller, List<WorkloadRecommendation> containers) {
        if (controller.isBarePod()) {
            return new WorkloadPatch(controller, Optional.empty(), Optional.of("a bare pod: a pod's resources cannot "
                    + "be changed in place; set them where the pod is created"));
        }
        List<String> path = CONTAINERS.get(controller.ownerKind());
        if (path == null) {
            return new WorkloadPatch(controller, Optional.empty(), Optional.of("a " + controller.ownerKind()
                    + ": kubectl's strategic merge applies to Kubernetes' own kinds only; set the resources in its "
                    + "pod template"));
        }
        List<Map<String, Object>> list = new ArrayList<>();
        for (WorkloadRecommendation container : containers) {
            Map<String, Object> limits = new LinkedHashMap<>();
            // Quantities as strings, as Kubernetes writes them.
            // In the vendor's resource names and memory unit; compute only where it is a percent of the card.
            CardResources resources = container.resources();
            if (container.memoryMib().isKnown()) {
                limits.put(resources.memory(), Long.toString(resources.memoryUnits(
                        (long) Math.ceil(container.memoryMib().orElseThrow()))));
            }
            if (container.cores().isKnown() && !resources.cores().isEmpty()) {
                limits.put(resources.cores(), WorkloadColumns.plain(container.cores()));
            }
            if (!limits.isEmpty()) {
                Map<String, Object> entry = new LinkedHashMap<>();
                entry.put("name", container.workload().container());
                entry.put("resources", Map.of("limits", limits));
                list.add(entry);
            }
        }
        if (list.isEmpty()) {
            return new WorkloadPatch(controller, Optional.empty(), Optional.of("no recommendation yet for any of its "
                    + "containers"));
        }
        Object tree = Map.of("containers", list);
        for (int i = path.size() - 1; i >= 0; i--) {
            tree = Map.of(path.get(i), tree);
        }
        DumpSettings settings = DumpSettings.builder().setDefaultFlowStyle(FlowStyle.BLOCK).build();
        return new WorkloadPatch(controller, Optional.of(new Dump(settings).dumpToString(tree)), Optional.empty());
    }

    /**
     * The file the patch is written to: the cluster (when the series name one), namespace, kind and
     * name, with nothing a shell or a path reads; two clusters' same-named workloads write two files.
     */
    String fileName() {
        String cluster = controller.cluster().isEmpty() ? "" : controller.cluster() + "-";
        return (cluster + controller.namespace() + "-" + controller.ownerKind() + "-" + controller.ownerName())
                .toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9.-]", "_") + ".patch.yaml";
    }

    /** The line that applies the patch, every value quoted for a POSIX shell. */
    String command() {
        return "kubectl patch " + controller.ownerKind().toLowerCase(Locale.ROOT) + " " + shell(controller.ownerName())
                + " -n " + shell(controller.namespace()) + " --type strategic --patch-file " + shell(fileName());
    }

    /**
     * The patch as a shell script: the file written from a quoted here-document (nothing in it
     * expanded), then the kubectl line; or a comment saying why there is none.
     */
    String script() {
        StringBuilder out = new StringBuilder("# ").append(Table.printable(controller.ownerKind() + " "
                + controller.namespace() + "/" + controller.ownerName())).append('\n');
        if (!controller.cluster().isEmpty()) {
            // kubectl applies to its current context: one engine's clusters each need their own.
            out.append("# cluster ").append(Table.printable(controller.cluster()))
                    .append(": apply with that cluster's kube context (kubectl config use-context)\n");
        }
        if (yaml.isEmpty()) {
            return out.append("# no patch: ").append(Table.printable(why.orElseThrow())).append("\n\n").toString();
        }
        String marker = "HAMI_OBSERVE_PATCH";
        return out.append("cat > ").append(shell(fileName())).append(" <<'").append(marker).append("'\n")
                .append(yaml.get()).append(marker).append('\n').append(command()).append("\n\n").toString();
    }

    static String shell(String value) {
        return "'" + Table.printable(value).replace("'", "'\\''") + "'";
    }
}
