package io.hamiobserve.console;

import io.hamiobserve.console.Format.Kind;
import io.hamiobserve.console.view.Facts;
import io.hamiobserve.console.view.Snippet;
import io.hamiobserve.domain.fleet.Figure;
import io.hamiobserve.domain.fleet.RightSizing;
import io.hamiobserve.domain.fleet.UsageHistory;
import io.hamiobserve.domain.fleet.Workload;
import io.hamiobserve.domain.fleet.WorkloadRecommendation;
import io.hamiobserve.domain.fleet.WorkloadRef;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The workload page's part for the controller a pod belongs to: the recommendation over every pod
 * the controller had in the window (not this pod's alone), its bounds and evidence, its pods to
 * drill down to, and the patch that applies it, with a Copy button.
 */
final class WorkloadSection {
    private WorkloadSection() {
    }

    /** The recommendation of the workload {@code ref} belongs to, from the whole fleet's history. */
    static Optional<WorkloadRecommendation> of(WorkloadRef ref, Optional<Workload> now, UsageHistory everything) {
        return RightSizing.byWorkload(now.stream().toList(), everything).stream()
                .filter(r -> r.workload().namespace().equals(ref.namespace())
                        && r.workload().container().equals(ref.container()) && r.pods().contains(ref.pod()))
                .findFirst();
    }

    static void add(PageKit.Builder page, Links links, WorkloadRef ref, WorkloadRecommendation advice,
                    Duration window) {
        List<Facts.Fact> facts = new ArrayList<>();
        String name = advice.workload().ownerKind() + " " + advice.workload().namespace() + "/"
                + advice.workload().ownerName();
        facts.add(new Facts.Fact("Workload", name, links.to("/rightsizing", Map.of("byworkload.q",
                advice.workload().ownerName())), "the pod's top controller", null));
        facts.add(new Facts.Fact("Pods in the window", advice.pods().size() + " (" + advice.podsNow().size()
                + " now)", null, "every pod of the workload with samples in the last " + Format.duration(window),
                null));
        for (WorkloadRecommendation.PodFigures pod : advice.perPod()) {
            facts.add(new Facts.Fact("Pod " + pod.pod(), Format.figure(pod.memoryPeak(), Kind.BYTES) + " peak, "
                    + Format.figure(pod.utilisationP95(), Kind.PERCENT) + " p95 per card; " + pod.samples()
                    + " samples", pod.pod().equals(ref.pod()) ? null
                    : links.workload(ref.namespace(), pod.pod(), ref.container()), null, null));
        }
        facts.add(range(advice.resources().memory() + " per card", advice.currentMemoryMib(), advice.memoryLowerMib(),
                advice.memoryMib(), advice.memoryUpperMib(), Kind.MIB));
        facts.add(range((advice.resources().cores().isEmpty() ? "compute (not requested in percent)"
                : advice.resources().cores()) + " per card", advice.currentCores(), advice.coresLower(), advice.cores(),
                advice.coresUpper(), Kind.PERCENT));
        facts.add(new Facts.Fact("Days of history", Format.figure(advice.historyDays(), Kind.DECIMAL), null,
                "bounds widen by (1 + 1/days), as Kubernetes' VPA widens them", null));
        advice.notEnoughData().ifPresent(why -> facts.add(new Facts.Fact("No recommendation", "not enough data: "
                + why + " (needs " + RightSizing.MIN_SAMPLES + " samples and " + RightSizing.MIN_HISTORY.toHours()
                + " h of history)", null, null, "missing")));
        advice.limitBump().ifPresent(why -> facts.add(new Facts.Fact("Limit hit", why, null, null, "bad")));
        advice.replicasDiffer().ifPresent(why -> facts.add(new Facts.Fact("Pods differ", why, null, null, "warn")));
        page.add(new Facts("Right-sizing of the workload", facts));
        WorkloadPatch patch = WorkloadPatch.of(List.of(advice)).getFirst();
        patch.yaml().ifPresentOrElse(
                yaml -> page.add(new Snippet("Patch for the " + advice.workload().ownerKind()
                        + " (this container)", "# " + patch.command() + "\n" + yaml, "patch")),
                () -> page.note("info", "No patch for this workload: " + patch.why().orElseThrow() + "."));
    }

    private static Facts.Fact range(String label, Figure now, Figure lower, Figure target, Figure upper, Kind kind) {
        return new Facts.Fact(label, Format.figure(now, kind) + " → " + Format.figure(target, kind) + " (bounds "
                + Format.figure(lower, kind) + " – " + Format.figure(upper, kind) + ")", null,
                "now → target (lower – upper bound)", target.isKnown() ? "recommended" : "missing");
    }
}
