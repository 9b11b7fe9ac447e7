package io.hamiobserve.adapters.k8s;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The RBAC manifests grant exactly what the two roles read, nothing more. */
class RbacTest {
    private static List<HasMetadata> load(String name) throws IOException {
        Path root = Path.of(System.getProperty("project.root", ".."));
        Path file = root.resolve("deploy/rbac").resolve(name);
        if (!Files.exists(file)) {
            file = Path.of("..", "deploy", "rbac", name);
        }
        try (InputStream in = Files.newInputStream(file)) {
            return new KubernetesSerialization().unmarshal(in);
        }
    }

    private static void check(List<HasMetadata> objects, String name, Set<String> resources, Set<String> verbs) {
        assertEquals(List.of("ServiceAccount", "ClusterRole", "ClusterRoleBinding"),
                objects.stream().map(HasMetadata::getKind).toList());
        ServiceAccount account = (ServiceAccount) objects.get(0);
        ClusterRole role = (ClusterRole) objects.get(1);
        ClusterRoleBinding binding = (ClusterRoleBinding) objects.get(2);
        assertEquals(name, account.getMetadata().getName());
        checkRule(role.getRules().get(0), "", resources, verbs);
        assertEquals(role.getMetadata().getName(), binding.getRoleRef().getName());
        assertEquals("ClusterRole", binding.getRoleRef().getKind());
        assertEquals(1, binding.getSubjects().size());
        assertEquals(account.getMetadata().getName(), binding.getSubjects().get(0).getName());
        assertEquals(account.getMetadata().getNamespace(), binding.getSubjects().get(0).getNamespace());
    }

    private static void checkRule(PolicyRule rule, String group, Set<String> resources, Set<String> verbs) {
        assertEquals(List.of(group), rule.getApiGroups());
        assertEquals(resources, Set.copyOf(rule.getResources()));
        assertEquals(resources.size(), rule.getResources().size());
        assertEquals(verbs, Set.copyOf(rule.getVerbs()));
        assertEquals(verbs.size(), rule.getVerbs().size());
        assertEquals(List.of(), rule.getResourceNames());
        assertEquals(List.of(), rule.getNonResourceURLs());
    }

    /** Nodes, pods and quotas; and list/watch on exactly ReplicaSets and Jobs, the pods' intermediate owners. */
    @Test
    void schedulerReadsNodesPodsQuotasAndTheOwnersOfPods() throws IOException {
        List<HasMetadata> objects = load("scheduler-rbac.yaml");
        check(objects, "hami-observe-scheduler", Set.of("nodes", "pods", "resourcequotas"),
                Set.of("get", "list", "watch"));
        List<PolicyRule> rules = ((ClusterRole) objects.get(1)).getRules();
        assertEquals(3, rules.size());
        checkRule(rules.get(1), "apps", Set.of("replicasets"), Set.of("list", "watch"));
        checkRule(rules.get(2), "batch", Set.of("jobs"), Set.of("list", "watch"));
    }

    @Test
    void nodeListsAndWatchesPodsOnly() throws IOException {
        List<HasMetadata> objects = load("node-rbac.yaml");
        check(objects, "hami-observe-node", Set.of("pods"), Set.of("list", "watch"));
        assertEquals(1, ((ClusterRole) objects.get(1)).getRules().size());
    }
}
