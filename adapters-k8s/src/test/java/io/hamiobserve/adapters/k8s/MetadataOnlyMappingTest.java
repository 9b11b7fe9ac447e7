package io.hamiobserve.adapters.k8s;

import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ReplicaSets and Jobs are read as metadata only: through the adapter's narrowed mapping, the
 * spec (the pod template) and status are never built, while what the owner chain reads is kept.
 */
class MetadataOnlyMappingTest {
    private static final String METADATA = "\"metadata\":{\"name\":\"api-5c8d7\",\"namespace\":\"ml\",\"uid\":\"u-1\","
            + "\"resourceVersion\":\"7\",\"labels\":{\"pod-template-hash\":\"5c8d7\"},\"ownerReferences\":[{"
            + "\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"name\":\"api\",\"uid\":\"d-1\",\"controller\":true,"
            + "\"blockOwnerDeletion\":true}],\"managedFields\":[{\"manager\":\"kube-controller-manager\"}]}";
    private static final String SPEC = "\"spec\":{\"replicas\":3,\"template\":{\"spec\":{\"containers\":[{\"name\":\"serve\","
            + "\"image\":\"cuda\",\"resources\":{\"limits\":{\"nvidia.com/gpumem\":\"8192\"}}}]}}},"
            + "\"status\":{\"replicas\":3}";

    @Test
    void aReplicaSetKeepsItsIdentityLabelsAndControllerOnly() {
        ReplicaSet rs = LedgerMapping.serialization().unmarshal("{\"apiVersion\":\"apps/v1\",\"kind\":\"ReplicaSet\","
                + METADATA + "," + SPEC + "}", ReplicaSet.class);
        assertNull(rs.getSpec());
        assertNull(rs.getStatus());
        assertEquals("api-5c8d7", rs.getMetadata().getName());
        assertEquals("u-1", rs.getMetadata().getUid());
        assertEquals(Map.of("pod-template-hash", "5c8d7"), rs.getMetadata().getLabels());
        assertTrue(rs.getMetadata().getManagedFields().isEmpty());
        OwnerReference owner = rs.getMetadata().getOwnerReferences().getFirst();
        assertEquals(true, owner.getController());
        assertEquals("Deployment/api/d-1", owner.getKind() + "/" + owner.getName() + "/" + owner.getUid());
        assertNull(owner.getBlockOwnerDeletion());
        // The full mapping, for contrast, builds the template.
        ReplicaSet full = new io.fabric8.kubernetes.client.utils.KubernetesSerialization().unmarshal(
                "{\"apiVersion\":\"apps/v1\",\"kind\":\"ReplicaSet\"," + METADATA + "," + SPEC + "}", ReplicaSet.class);
        assertEquals("serve", full.getSpec().getTemplate().getSpec().getContainers().getFirst().getName());
    }

    @Test
    void aJobToo() {
        Job job = LedgerMapping.serialization().unmarshal("{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\"," + METADATA
                + "," + SPEC.replace("\"replicas\":3,", "") + "}", Job.class);
        assertNull(job.getSpec());
        assertNull(job.getStatus());
        assertEquals("Deployment", job.getMetadata().getOwnerReferences().getFirst().getKind());
    }
}
