package io.hamiobserve.domain;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The resolution rules of {@link OwnerChains}, as a table of cases: what the pod says, what is known, the answer. */
class OwnerChainsTest {
    private static final String NS = "ml";

    /**
     * @param name       the case
     * @param controller what the pod says
     * @param known      the intermediate owners known
     * @param owner      the expected top controller, {@code Kind/name}
     * @param problem    the expected problem, or null
     */
    record Case(String name, PodController controller, List<OwnerObject> known, String owner, String problem) {
        @Override
        public String toString() {
            return name;
        }
    }

    static OwnerRef ref(String kind, String name) {
        return new OwnerRef(kind, name, kind + "/" + name);
    }

    static OwnerObject object(String kind, String name, OwnerRef above) {
        return new OwnerObject(kind, NS, name, kind + "/" + name, Optional.ofNullable(above));
    }

    static PodController controlledBy(OwnerRef ref) {
        return PodController.of(ref);
    }

    static Stream<Case> cases() {
        OwnerRef rs = ref("ReplicaSet", "api-7d9f8b6c5");
        OwnerRef job = ref("Job", "nightly-29012345");
        return Stream.of(
                new Case("a bare pod is its own workload", PodController.NONE, List.of(), "Pod/train-0", null),
                new Case("Pod -> ReplicaSet -> Deployment", controlledBy(rs),
                        List.of(object("ReplicaSet", rs.name(), ref("Deployment", "api"))), "Deployment/api", null),
                new Case("Pod -> ReplicaSet -> Argo Rollout", controlledBy(rs),
                        List.of(object("ReplicaSet", rs.name(), ref("Rollout", "canary"))), "Rollout/canary", null),
                new Case("Pod -> Job -> CronJob", controlledBy(job),
                        List.of(object("Job", job.name(), ref("CronJob", "nightly"))), "CronJob/nightly", null),
                new Case("a ReplicaSet with no owner above it", controlledBy(rs),
                        List.of(object("ReplicaSet", rs.name(), null)), "ReplicaSet/api-7d9f8b6c5", null),
                new Case("a Job with no owner above it", controlledBy(job),
                        List.of(object("Job", job.name(), null)), "Job/nightly-29012345", null),
                new Case("a StatefulSet (not cached) as it is", controlledBy(ref("StatefulSet", "db")), List.of(),
                        "StatefulSet/db", null),
                new Case("a DaemonSet as it is", controlledBy(ref("DaemonSet", "probe")), List.of(),
                        "DaemonSet/probe", null),
                new Case("an operator's kind as it is", controlledBy(ref("RayCluster", "ray")), List.of(),
                        "RayCluster/ray", null),
                new Case("a ReplicaSet owned by a LeaderWorkerSet", controlledBy(rs),
                        List.of(object("ReplicaSet", rs.name(), ref("LeaderWorkerSet", "lws"))),
                        "LeaderWorkerSet/lws", null),
                new Case("unknown ReplicaSet named <name>-<pod-template-hash>: the Deployment",
                        new PodController(Optional.of(rs), "7d9f8b6c5"), List.of(), "Deployment/api", null),
                new Case("unknown ReplicaSet, hash that is not its suffix: the ReplicaSet",
                        new PodController(Optional.of(rs), "aaaaaaa"), List.of(), "ReplicaSet/api-7d9f8b6c5", null),
                new Case("unknown ReplicaSet, no hash label: the ReplicaSet", controlledBy(rs), List.of(),
                        "ReplicaSet/api-7d9f8b6c5", null),
                new Case("unknown ReplicaSet named only -<hash>: the ReplicaSet",
                        new PodController(Optional.of(ref("ReplicaSet", "-abc")), "abc"), List.of(),
                        "ReplicaSet/-abc", null),
                new Case("the hash rule is for ReplicaSets only",
                        new PodController(Optional.of(ref("Job", "x-abc")), "abc"), List.of(), "Job/x-abc", null),
                new Case("a known ReplicaSet with no owner is not renamed by the hash",
                        new PodController(Optional.of(rs), "7d9f8b6c5"), List.of(object("ReplicaSet", rs.name(), null)),
                        "ReplicaSet/api-7d9f8b6c5", null),
                new Case("a reference without UID stops the chain", controlledBy(new OwnerRef("Job", "j", "")),
                        List.of(object("Job", "j", ref("CronJob", "c"))), "Job/j", null),
                new Case("an owner of another namespace is not the pod's",
                        controlledBy(rs), List.of(new OwnerObject("ReplicaSet", "other", rs.name(), rs.uid(),
                                Optional.of(ref("Deployment", "elsewhere")))), "ReplicaSet/api-7d9f8b6c5", null),
                new Case("a ReplicaSet that controls itself", controlledBy(rs),
                        List.of(object("ReplicaSet", rs.name(), rs)), "ReplicaSet/api-7d9f8b6c5", "owner_cycle"),
                new Case("a cycle of two", controlledBy(ref("ReplicaSet", "a")),
                        List.of(object("ReplicaSet", "a", ref("Job", "b")), object("Job", "b", ref("ReplicaSet", "a"))),
                        "Job/b", "owner_cycle"),
                new Case("a chain as deep as allowed", controlledBy(ref("ReplicaSet", "r1")),
                        chain(OwnerChains.MAX_LOOKUPS - 1), "Deployment/top", null),
                new Case("a 10,000-deep chain stops at the bound", controlledBy(ref("ReplicaSet", "r1")),
                        chain(10_000), "ReplicaSet/r" + OwnerChains.MAX_LOOKUPS, "owner_chain_too_deep"));
    }

    /** ReplicaSets r1 -> r2 -> ... -> rN -> Deployment top. */
    static List<OwnerObject> chain(int length) {
        return java.util.stream.IntStream.rangeClosed(1, length).mapToObj(i -> object("ReplicaSet", "r" + i,
                i == length ? ref("Deployment", "top") : ref("ReplicaSet", "r" + (i + 1)))).toList();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void resolves(Case c) {
        Map<String, OwnerObject> known = new HashMap<>();
        c.known().forEach(owner -> known.put(owner.uid(), owner));
        OwnerChains.Resolution resolution = OwnerChains.resolve(new PodRef(NS, "train-0", "pod-uid"), c.controller(),
                known::get);
        PodOwner owner = resolution.owner();
        assertEquals(c.owner(), owner.kind() + "/" + owner.name());
        assertEquals(Optional.ofNullable(c.problem()), resolution.problem().map(OwnerChains.Problem::reason));
        assertEquals(true, resolution.path().size() <= OwnerChains.MAX_LOOKUPS);
    }
}
