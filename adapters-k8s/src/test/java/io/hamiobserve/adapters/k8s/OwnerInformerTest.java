package io.hamiobserve.adapters.k8s;

import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hamiobserve.domain.Ledger;
import io.hamiobserve.ports.SchedulerLedgerSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static io.hamiobserve.adapters.k8s.Fixtures.await;
import static io.hamiobserve.adapters.k8s.Fixtures.card;
import static io.hamiobserve.adapters.k8s.Fixtures.node;
import static io.hamiobserve.adapters.k8s.Fixtures.pod;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** Each pod's top controller, followed live through the ReplicaSet and Job informers (fabric8's mock API server, CRUD mode). */
class OwnerInformerTest {
    private final MockCluster cluster = new MockCluster();
    private final KubernetesClient client = cluster.client;
    private final KubernetesClient ledgerClient = cluster.ledgerClient;
    private final Ledger ledger = new Ledger();
    private final Fixtures.RecordingSkips skips = new Fixtures.RecordingSkips();
    private SchedulerLedgerSource source;

    @AfterEach
    void stop() {
        if (source != null) {
            source.close();
        }
        cluster.close();
    }

    private static OwnerReference controller(String kind, String name, String uid) {
        return new OwnerReferenceBuilder().withApiVersion("apps/v1").withKind(kind).withName(name).withUid(uid)
                .withController(true).build();
    }

    private static ReplicaSet replicaSet(String name, String uid, OwnerReference owner) {
        ReplicaSetBuilder builder = new ReplicaSetBuilder().withNewMetadata().withNamespace("ml").withName(name)
                .endMetadata()
                // A spec the informer reads past: only the metadata is kept.
                .withNewSpec().withReplicas(2).withNewTemplate().withNewSpec().addNewContainer().withName("serve")
                .withImage("cuda").endContainer().endSpec().endTemplate().endSpec();
        if (owner != null) {
            builder.editMetadata().withOwnerReferences(owner).endMetadata();
        }
        return builder.build();
    }

    private Pod podOf(String name, OwnerReference owner, String hash) {
        var builder = pod("ml", name, "node-a", "GPU-1,NVIDIA,1000,10:;", "c");
        if (owner != null) {
            builder.editMetadata().withOwnerReferences(owner).endMetadata();
        }
        if (hash != null) {
            builder.editMetadata().addToLabels("pod-template-hash", hash).endMetadata();
        }
        return builder.build();
    }

    private Map<String, String> owners() {
        return SnapshotLedgerSourceTest.owners(ledger.view());
    }

    private static Job job(String name, OwnerReference owner) {
        return new JobBuilder().withNewMetadata().withNamespace("ml").withName(name).withOwnerReferences(owner)
                .endMetadata().withNewSpec().withNewTemplate().withNewSpec().addNewContainer().withName("e")
                .withImage("cuda").endContainer().endSpec().endTemplate().endSpec().build();
    }

    /** The mock server gives each object a UID of its own, as an API server does: references use it. */
    @Test
    void followsReplicaSetsAndJobsAsTheyComeChangeAndGo() {
        client.nodes().resource(node("node-a", "[" + card("GPU-1", 0, 40960) + "]")).create();
        String rsUid = client.apps().replicaSets().inNamespace("ml").resource(replicaSet("api-5c8d7", "",
                controller("Deployment", "api", "dep-uid"))).create().getMetadata().getUid();
        String orphanUid = client.apps().replicaSets().inNamespace("ml").resource(replicaSet("orphan-1", "", null))
                .create().getMetadata().getUid();
        client.pods().inNamespace("ml").resource(podOf("api-5c8d7-a", controller("ReplicaSet", "api-5c8d7", rsUid),
                null)).create();
        client.pods().inNamespace("ml").resource(podOf("orphan-1-a", controller("ReplicaSet", "orphan-1", orphanUid),
                null)).create();
        client.pods().inNamespace("ml").resource(podOf("bare", null, null)).create();
        client.pods().inNamespace("ml").resource(podOf("db-0", controller("StatefulSet", "db", "sts-uid"), null))
                .create();

        source = KubernetesSources.cluster(ledgerClient, Duration.ofMillis(100));
        source.start(ledger, skips);
        await("first sync", ledger::isSynced);
        assertEquals(Map.of("api-5c8d7-a", "Deployment/api", "orphan-1-a", "ReplicaSet/orphan-1", "bare", "Pod/bare",
                "db-0", "StatefulSet/db"), owners());
        assertEquals(2, ledger.ownerCount());

        // A CronJob's Job and its pod, created while watched.
        String jobUid = client.batch().v1().jobs().inNamespace("ml").resource(job("embed-1",
                controller("CronJob", "embed", "cj-uid"))).create().getMetadata().getUid();
        client.pods().inNamespace("ml").resource(podOf("embed-1-x", controller("Job", "embed-1", jobUid), null))
                .create();
        await("job's CronJob", () -> "CronJob/embed".equals(owners().get("embed-1-x")));

        // An Argo Rollout takes the ReplicaSet over: its pod follows, the other pods are untouched.
        client.apps().replicaSets().inNamespace("ml").withName("api-5c8d7").edit(rs -> {
            rs.getMetadata().setOwnerReferences(List.of(controller("Rollout", "api-canary", "ro-uid")));
            return rs;
        });
        await("rollout", () -> "Rollout/api-canary".equals(owners().get("api-5c8d7-a")));
        assertEquals("ReplicaSet/orphan-1", owners().get("orphan-1-a"));

        // The ReplicaSet is deleted: without a template hash its pod stays with the ReplicaSet's name;
        // the Job deleted: its pod is the Job's.
        client.apps().replicaSets().inNamespace("ml").withName("api-5c8d7").delete();
        client.batch().v1().jobs().inNamespace("ml").withName("embed-1").delete();
        await("owners gone", () -> ledger.ownerCount() == 1 && "ReplicaSet/api-5c8d7".equals(owners().get("api-5c8d7-a"))
                && "Job/embed-1".equals(owners().get("embed-1-x")));

        // A pod of a Deployment whose ReplicaSet is gone: the template hash names the Deployment.
        client.pods().inNamespace("ml").resource(podOf("web-7f6b5-q", controller("ReplicaSet", "web-7f6b5",
                "gone-uid"), "7f6b5")).create();
        await("hash rule", () -> "Deployment/web".equals(owners().get("web-7f6b5-q")));
        assertEquals(List.of(), skips.reasons());
    }
}
