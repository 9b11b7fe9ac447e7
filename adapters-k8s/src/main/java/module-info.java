/**
 * The Kubernetes side: the scheduler's ledger (nodes, pods, ResourceQuotas) through fabric8
 * informers or an offline snapshot, the directory of HAMi pods on one node, and the NVIDIA
 * device vendor's annotation formats.
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
    requires java.net.http;
    requires org.slf4j;
    requires tools.jackson.databind;
    requires tools.jackson.dataformat.yaml;
    // SnakeYAML's load settings: its code-point limit is raised for dumps of large clusters.
    requires org.snakeyaml.engine;
    requires java.logging;

    exports io.hamiobserve.adapters.k8s;

    uses io.hamiobserve.ports.spi.DeviceVendor;
    provides io.hamiobserve.ports.spi.DeviceVendor with io.hamiobserve.adapters.k8s.NvidiaDeviceVendor;
}
