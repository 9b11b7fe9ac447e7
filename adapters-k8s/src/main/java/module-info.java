/**
 * The Kubernetes side: the scheduler's ledger (nodes, pods, ResourceQuotas) through fabric8
 * informers or an offline snapshot, and the directory of HAMi pods on one node; what a node's
 * or pod's device annotations and resources mean is asked of the device providers.
 *
 * <p>fabric8's automatic modules do not declare what they load at run time, so the modules it
 * needs are required here explicitly (see docs/modules.md).
 */
module io.hamiobserve.adapters.k8s {
    // KubernetesSources returns port types: its users need the ports module too.
    requires transitive io.hamiobserve.ports;
    requires kubernetes.client.api;
    requires kubernetes.model.core;
    requires kubernetes.model.common;
    // ReplicaSets and Jobs: the pods' intermediate owners, read as metadata only.
    requires kubernetes.model.apps;
    requires kubernetes.model.batch;
    requires java.net.http;
    requires org.slf4j;
    requires tools.jackson.databind;
    requires tools.jackson.dataformat.yaml;
    // SnakeYAML's load settings: its code-point limit is raised for dumps of large clusters.
    requires org.snakeyaml.engine;
    requires java.logging;

    exports io.hamiobserve.adapters.k8s;

    // Every vendor's cards and shares come from the device providers on the module path: this
    // module names none of them.
    uses io.hamiobserve.ports.spi.DeviceProvider;
}
